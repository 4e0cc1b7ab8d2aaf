import { CommandError, runChecked, type Executor } from '../executors/executor.ts';
import { sendInto } from './zfs-pipe.ts';

/**
 * ZFS replication for E20: snapshots, a dry-run size estimate, and `zfs send -R` on this host piped into
 * `zfs recv -F -u` on another (over SSH, agent/executors/pipe.ts), full or incremental.
 */
interface SendEstimate {
  kind: 'full' | 'incremental';
  from: string | null;
  snapshot: string;
  bytes: number;
}

/**
 * `zfs send -nP` / `-nvP` (the parsable dry run): `full\t<snap>\t<bytes>` or `incremental\t<from>\t<snap>\t<bytes>`,
 * then `size\t<total>` (test/fixtures/freebsd/zfs-send-nvP-*.txt).
 */
export function parseSendDryRun(stdout: string): SendEstimate {
  let est: SendEstimate | null = null;
  let total: number | null = null;
  for (const line of stdout.split('\n')) {
    const f = line.split('\t');
    if (f[0] === 'full' && f.length >= 3) est = { kind: 'full', from: null, snapshot: f[1], bytes: Number(f[2]) };
    else if (f[0] === 'incremental' && f.length >= 4) est = { kind: 'incremental', from: f[1], snapshot: f[2], bytes: Number(f[3]) };
    else if (f[0] === 'size' && f.length >= 2) total = Number(f[1]);
  }
  if (!est) throw new Error(`unexpected zfs send -nP output: ${stdout.slice(0, 200)}`);
  if (total !== null && Number.isFinite(total)) est.bytes = total;
  return est;
}

export async function snapshot(exec: Executor, name: string): Promise<void> {
  await runChecked(exec, ['zfs', 'snapshot', '-r', name]);
}

export async function datasetExists(exec: Executor, name: string): Promise<boolean> {
  const r = await exec.run(['zfs', 'list', '-H', '-o', 'name', name]);
  if (r.code === 0) return true;
  if (/does not exist/.test(r.stderr)) return false;
  throw new CommandError(['zfs', 'list', '-H', '-o', 'name', name], r);
}

/** Destroys a dataset (recursively) or a snapshot; a missing one is not an error. */
export async function destroyIfExists(exec: Executor, name: string): Promise<boolean> {
  const r = await exec.run(['zfs', 'destroy', '-r', name]);
  if (r.code === 0) return true;
  if (/does not exist|could not find any snapshots/.test(r.stderr)) return false;
  throw new CommandError(['zfs', 'destroy', '-r', name], r);
}

const sendArgv = (dataset: string, snap: string, from: string | null) => ['zfs', 'send', '-R', ...(from ? ['-i', `@${from}`] : []), `${dataset}@${snap}`];

export async function estimateSend(exec: Executor, dataset: string, snap: string, from: string | null): Promise<number> {
  const argv = sendArgv(dataset, snap, from);
  return parseSendDryRun(await runChecked(exec, [...argv.slice(0, 2), '-nP', ...argv.slice(2)])).bytes;
}

/** `zfs send -R [-i @from] ds@snap | <target> zfs recv -F -u ds`; throws with the failing side's message. */
export async function sendTo(source: Executor, target: Executor, dataset: string, snap: string, from: string | null, onBytes?: (n: number) => void): Promise<number> {
  return (await sendInto(source, sendArgv(dataset, snap, from), target, ['zfs', 'recv', '-F', '-u', dataset], onBytes)).bytes;
}
