import type { Command } from 'commander';
import { clientFor, flagsOf, perform, type Io } from './context.ts';
import { json, table } from './output.ts';
import { watchTask } from './watch.ts';
import type { ApiData } from '#generated/api-types.ts';

/** `jail 101` / `vm 201` → the guest's path under /guests. */
function guestPath(type: string, id: string): string {
  if (type !== 'jail' && type !== 'vm') throw new Error(`guest type: expected jail or vm, got "${type}"`);
  if (!/^[1-9]\d{0,9}$/.test(id)) throw new Error(`guest id: expected a positive integer, got "${id}"`);
  return `/guests/${type}/${id}/snapshots`;
}

/** `hostmgr snapshot list|create|rollback|destroy <jail|vm> <id> …`: snapshots of a guest's datasets, followed live. */
export function addSnapshotVerbs(program: Command, io: Io): void {
  const snapshot = program.command('snapshot').description("snapshots of a guest's datasets: list, create, rollback, destroy");
  snapshot
    .command('list <type> <id>')
    .description('the snapshots of a jail or VM, oldest first, with holds, clones and backup-job ownership')
    .addHelpText('after', '\nExample:\n  hostmgr snapshot list jail 101\n')
    .action(async (type: string, id: string, _o, cmd: Command) => {
      const { data } = (await clientFor(cmd, io).call<ApiData['GET /api/guests/{guestType}/{guestId}/snapshots']>('GET', guestPath(type, id))).envelope;
      if (flagsOf(cmd).json) return void io.stdout.write(json(data));
      const rows = data.snapshots.map((s) => ({ ...s, holds: s.holds.join(','), clones: s.clones.join(',') }));
      io.stdout.write(table(rows, ['snapshot', 'createdAt', 'usedBytes', 'holds', 'clones', 'backupJob']));
    });
  snapshot
    .command('create <type> <id> <name>')
    .description("snapshot all the guest's datasets at once (name: letters, digits, - _ . : and space)")
    .addHelpText('after', '\nExample:\n  hostmgr snapshot create jail 101 before-upgrade\n')
    .action(async (type: string, id: string, name: string, _o, cmd: Command) => perform(cmd, io, 'POST', guestPath(type, id), { body: { name } }));
  snapshot
    .command('rollback <type> <id> <snapshot>')
    .description('roll a dataset back to a snapshot (dataset@name); newer snapshots are destroyed only with --destroy-newer')
    .option('--destroy-newer', 'zfs rollback -r: destroy the snapshots newer than this one (the answer names them)')
    .addHelpText('after', '\nExample:\n  hostmgr snapshot rollback jail 101 zroot/jails/web@before-upgrade --destroy-newer\n')
    .action(async (type: string, id: string, snap: string, o: { destroyNewer?: boolean }, cmd: Command) => {
      const client = clientFor(cmd, io);
      const flags = flagsOf(cmd);
      const answer = await client.call<ApiData['POST /api/guests/{guestType}/{guestId}/snapshots/rollback']>('POST', `${guestPath(type, id)}/rollback`, {
        body: { snapshot: snap, destroyNewer: Boolean(o.destroyNewer) },
      });
      const out = flags.json ? io.stderr : io.stdout;
      if (flags.json) io.stdout.write(json(answer.envelope.data));
      out.write(`rolling back to ${snap}; destroys: ${answer.envelope.data.destroys.join(', ') || 'nothing'}\n`);
      if (answer.taskId === null || flags.detach) return void out.write(`task ${answer.taskId}\n`);
      io.exitCode = await watchTask(client, answer.taskId, { stdout: out, detach: io.detach });
    });
  snapshot
    .command('destroy <type> <id> <snapshot>')
    .description('destroy a snapshot (dataset@name); refused while held, cloned, or a backup job’s own')
    .addHelpText('after', '\nExample:\n  hostmgr snapshot destroy vm 201 zroot/vms/201/disk0@old\n')
    .action(async (type: string, id: string, snap: string, _o, cmd: Command) =>
      perform(cmd, io, 'POST', `${guestPath(type, id)}/destroy`, { body: { snapshot: snap } }),
    );
}
