import { CommandError, runChecked, type Executor } from '../executors/executor.ts';
import { runPiped } from '../executors/pipe.ts';

/**
 * The ZFS steps of a backup restore (E15): list a dataset's snapshots, read a snapshot's GUID, stream
 * `zfs send -R -w ds@snap` from one host into `zfs recv -u -x mountpoint <restoring>` on another (raw, so an
 * encrypted backup stays encrypted; unmounted and with an inherited mountpoint, so it never covers the live
 * dataset), read properties, load a key from stdin, rename, set the mountpoint.
 */

/** The snapshot names (after `@`) of a dataset itself, in creation order (`zfs list -d 1 -t snapshot`). */
export async function snapshotNames(exec: Executor, dataset: string): Promise<string[] | null> {
  const argv = ['zfs', 'list', '-H', '-p', '-t', 'snapshot', '-o', 'name', '-s', 'creation', '-d', '1', dataset];
  const r = await exec.run(argv);
  if (r.code !== 0) {
    if (/does not exist/.test(r.stderr)) return null;
    throw new CommandError(argv, r);
  }
  return r.stdout
    .split('\n')
    .filter((l) => l.startsWith(`${dataset}@`))
    .map((l) => l.slice(dataset.length + 1).trim());
}

/** The GUID of a snapshot (`zfs list -H -p -o name,guid`), or null when it does not exist. */
export async function snapshotGuid(exec: Executor, snapshot: string): Promise<string | null> {
  const argv = ['zfs', 'list', '-H', '-p', '-t', 'snapshot', '-o', 'name,guid', snapshot];
  const r = await exec.run(argv);
  if (r.code !== 0) {
    if (/does not exist/.test(r.stderr)) return null;
    throw new CommandError(argv, r);
  }
  const [name, guid] = r.stdout.trim().split('\t');
  return name === snapshot && guid ? guid : null;
}

/** `zfs send -R -w <dataset>@<snap>` on `from` piped into `zfs recv -u -x mountpoint <into>` on `to`. */
export async function receiveSnapshot(from: Executor, dataset: string, snap: string, to: Executor, into: string): Promise<number> {
  const send = ['zfs', 'send', '-R', '-w', `${dataset}@${snap}`];
  const recv = ['zfs', 'recv', '-u', '-x', 'mountpoint', into];
  const r = await runPiped(from, send, to, recv);
  if (r.source.code !== 0) throw new CommandError(send, { code: r.source.code, stdout: '', stderr: r.source.stderr });
  if (r.target.code !== 0) throw new CommandError(recv, r.target);
  return r.bytes;
}

/** Properties of a dataset: value and source each (`zfs get -H -o property,value,source`). */
export async function datasetProps(exec: Executor, dataset: string, props: string[]): Promise<Record<string, { value: string; source: string }>> {
  const out = await runChecked(exec, ['zfs', 'get', '-H', '-o', 'property,value,source', props.join(','), dataset]);
  const res: Record<string, { value: string; source: string }> = {};
  for (const line of out.split('\n')) {
    const [prop, value, source] = line.split('\t');
    if (prop && value !== undefined) res[prop] = { value, source: source ?? '-' };
  }
  return res;
}

/** `zfs load-key -L prompt <dataset>` with the key on stdin (never on the command line). */
export async function loadKey(exec: Executor, dataset: string, key: string | Buffer): Promise<void> {
  await runChecked(exec, ['zfs', 'load-key', '-L', 'prompt', dataset], { stdin: key });
}

export async function renameDataset(exec: Executor, from: string, to: string): Promise<void> {
  await runChecked(exec, ['zfs', 'rename', from, to]);
}

export async function setMountpoint(exec: Executor, dataset: string, mountpoint: string): Promise<void> {
  await runChecked(exec, ['zfs', 'set', `mountpoint=${mountpoint}`, dataset]);
}
