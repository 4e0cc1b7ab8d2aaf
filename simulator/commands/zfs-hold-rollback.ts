import type { SimDataset } from '#shared/seed/host/schema';
import { getopt, holdTime } from '../format.ts';
import { fail, registerSubcommand, withUsage, type CommandContext, type CommandOutput } from '../registry.ts';
import { clonesOf, findDataset } from '../dataset-model.ts';
import { contentOf, setContent, snapDir } from './zfs-mounts.ts';
import { dropSnapshots, snapshotDestroyRefusal } from './zfs-destroy.ts';

/**
 * `zfs hold`, `zfs holds`, `zfs release` and `zfs rollback`, as OpenZFS's cmd/zfs/zfs_main.c does them
 * (zfs_do_hold_rele_impl, zfs_do_holds/print_holds, zfs_do_rollback/rollback_check):
 * - hold: a tag per snapshot; an existing tag is EEXIST ("tag already exists on this dataset");
 * - holds -H: `name<TAB>tag<TAB>timestamp` per hold (print_holds' scripted form);
 * - rollback: only to the newest snapshot, unless -r destroys the newer ones; newer snapshots refused without -r
 *   are listed ("more recent snapshots or bookmarks exist", then "use '-r' to force deletion of the following
 *   snapshots and bookmarks:" and the names); a newer snapshot with clones needs -R (not simulated), and a held
 *   one cannot be destroyed; the filesystem's files become the snapshot's.
 */
const notExist = (name: string) => fail(`cannot open '${name}': dataset does not exist`);

const snapshotNamed = (ctx: CommandContext, name: string): SimDataset | undefined => {
  const d = findDataset(ctx.state, name);
  return d?.type === 'snapshot' ? d : undefined;
};

function hold(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'r');
  if (o.flags.has('r')) throw new Error('zfs hold -r is not simulated');
  const [tag, ...snaps] = o.operands;
  if (!tag || !snaps.length) return fail(`missing ${tag ? 'snapshot' : 'tag name'} argument`, 2);
  for (const name of snaps) {
    if (!name.includes('@')) return fail(`'${name}' is not a snapshot`);
    const s = snapshotNamed(ctx, name);
    if (!s) return fail(`cannot hold snapshot '${name}': dataset does not exist`);
    if (s.holds?.[tag] !== undefined) return fail(`cannot hold snapshot '${name}': tag already exists on this dataset`);
    s.holds = { ...s.holds, [tag]: Math.floor(ctx.now / 1000) };
  }
  return {};
}

function release(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'r');
  if (o.flags.has('r')) throw new Error('zfs release -r is not simulated');
  const [tag, ...snaps] = o.operands;
  if (!tag || !snaps.length) return fail(`missing ${tag ? 'snapshot' : 'tag name'} argument`, 2);
  for (const name of snaps) {
    const s = snapshotNamed(ctx, name);
    if (!s) return fail(`cannot release hold from snapshot '${name}': dataset does not exist`);
    if (s.holds?.[tag] === undefined) return fail(`cannot release hold from snapshot '${name}': no such tag on this dataset`);
    const { [tag]: _gone, ...rest } = s.holds;
    s.holds = rest;
  }
  return {};
}

function holds(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'Hpr');
  if (o.flags.has('r')) throw new Error('zfs holds -r is not simulated');
  if (!o.operands.length) return fail('missing snapshot argument', 2);
  const rows: string[][] = [];
  for (const name of o.operands) {
    const s = snapshotNamed(ctx, name);
    if (!s) return notExist(name);
    for (const [tag, at] of Object.entries(s.holds ?? {})) rows.push([name, tag, o.flags.has('p') ? String(at) : holdTime(at * 1000)]);
  }
  if (o.flags.has('H')) return { stdout: rows.map((r) => `${r.join('\t')}\n`).join('') };
  const w = [4, 3].map((min, i) => Math.max(min, ...rows.map((r) => r[i].length)));
  const line = (r: string[]) => `${r[0].padEnd(w[0])}  ${r[1].padEnd(w[1])}  ${r[2]}\n`;
  return { stdout: line(['NAME', 'TAG', 'TIMESTAMP']) + rows.map(line).join('') };
}

function rollback(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'rRf');
  if (o.flags.has('R')) throw new Error('zfs rollback -R (destroying clones) is not simulated');
  const [target] = o.operands;
  if (!target) return fail('missing dataset argument', 2);
  if (!target.includes('@')) return fail(`'${target}' is not a snapshot`);
  const snap = snapshotNamed(ctx, target);
  if (!snap) return notExist(target);
  const [fsName, snapName] = target.split('@');
  const fs = findDataset(ctx.state, fsName)!;
  const own = ctx.state.datasets.filter((d) => d.type === 'snapshot' && d.name.startsWith(`${fsName}@`));
  const newer = own.slice(own.indexOf(snap) + 1);
  if (newer.length && !o.flags.has('r'))
    return fail(
      `cannot rollback to '${target}': more recent snapshots or bookmarks exist\nuse '-r' to force deletion of the following snapshots and bookmarks:\n${newer.map((n) => n.name).join('\n')}`,
    );
  const cloned = newer.flatMap((n) => clonesOf(ctx.state, n.name));
  if (cloned.length)
    return fail(
      `cannot rollback to '${target}': clones of previous snapshots exist\nuse '-R' to force deletion of the following clones and dependents:\n${cloned.join('\n')}`,
    );
  const refusals = newer.map((n) => snapshotDestroyRefusal(ctx.state, n)).filter((r): r is string => r !== null);
  if (refusals.length) return fail(refusals.join('\n'));
  dropSnapshots(ctx.state, newer);
  if (fs.type === 'filesystem') {
    const content = contentOf(ctx.state, fs);
    const dir = snapDir(snapName);
    const kept = Object.entries(content).filter(([rel]) => rel.startsWith('.zfs/'));
    const back = Object.entries(content).flatMap(([rel, f]) => (rel.startsWith(dir) ? [[rel.slice(dir.length), f] as const] : []));
    setContent(ctx.state, fs, Object.fromEntries([...kept, ...back]));
  }
  return {};
}

registerSubcommand('zfs', 'hold', withUsage(hold, '\thold [-r] <tag> <snapshot> ...'));
registerSubcommand('zfs', 'release', withUsage(release, '\trelease [-r] <tag> <snapshot> ...'));
registerSubcommand('zfs', 'holds', withUsage(holds, '\tholds [-rHp] <snapshot> ...'));
registerSubcommand('zfs', 'rollback', withUsage(rollback, '\trollback [-rRf] <snapshot>'));
