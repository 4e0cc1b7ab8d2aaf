import { CommandError, runChecked, type Executor } from '../../executors/executor.ts';
import { isJobSnapshot, jobSnapshotsOldestFirst } from '#shared/agent-api/backup-snapshot-names';

/**
 * A backup job's snapshots on one host: listing them with their GUIDs (a snapshot received elsewhere keeps its
 * GUID, so equal name + GUID on both sides is a common snapshot), finding the newest common one, and pruning
 * beyond retention — only ever the job's own `hm-backup-<jobId>-…` snapshots.
 */
export interface Snap {
  /** the part after `@` */
  name: string;
  guid: string;
}

/**
 * `zfs list -H -p -t snapshot -o name,guid -d 1 <ds>`: the dataset's own snapshots, in the order zfs lists them
 * (creation). A dataset that does not exist has none.
 */
export async function listSnapshots(exec: Executor, dataset: string): Promise<Snap[]> {
  const argv = ['zfs', 'list', '-H', '-p', '-t', 'snapshot', '-o', 'name,guid', '-d', '1', dataset];
  const r = await exec.run(argv);
  if (r.code !== 0) {
    if (/does not exist/.test(r.stderr)) return [];
    throw new CommandError(argv, r);
  }
  const out: Snap[] = [];
  for (const line of r.stdout.split('\n')) {
    const [full, guid] = line.split('\t');
    if (!full?.startsWith(`${dataset}@`) || !guid) continue;
    out.push({ name: full.slice(dataset.length + 1), guid: guid.trim() });
  }
  return out;
}

/** The newest of the job's snapshots present on both sides with the same GUID, or null (the next send is full). */
export function newestCommon(jobId: number, source: Snap[], target: Snap[]): string | null {
  const there = new Map(target.map((s) => [s.name, s.guid]));
  const common = source.filter((s) => isJobSnapshot(jobId, s.name) && there.get(s.name) === s.guid).map((s) => s.name);
  return jobSnapshotsOldestFirst(jobId, common).at(-1) ?? null;
}

/** The job's snapshots beyond the newest `keep`, oldest first: what retention destroys. */
export function beyondRetention(jobId: number, snaps: Snap[], keep: number): string[] {
  const mine = jobSnapshotsOldestFirst(
    jobId,
    snaps.map((s) => s.name),
  );
  return mine.slice(0, Math.max(0, mine.length - keep));
}

/** `zfs destroy -r ds@a,b,…` (with -r: also the same snapshots of the children a `-R` send replicated). */
export async function destroySnapshots(exec: Executor, dataset: string, names: string[]): Promise<void> {
  if (!names.length) return;
  await runChecked(exec, ['zfs', 'destroy', '-r', `${dataset}@${names.join(',')}`]);
}

/**
 * The target's snapshots newer than the common one `from`, in creation order: a restore of an older snapshot on
 * the source (E15) replaced the history after `from` there, so the copy's snapshots after it belong to a history
 * that no longer exists on the source. `zfs recv` of an incremental from `from` refuses such a copy: "destination
 * … has been modified since most recent snapshot" (libzfs_sendrecv.c on the kernel's ETXTBSY: the copy's newest
 * snapshot is not the stream's origin), so the copy is rolled back to `from` first (rollbackCopy).
 */
export function newerThan(snaps: Snap[], from: string): string[] {
  const i = snaps.findIndex((s) => s.name === from);
  return i < 0 ? [] : snaps.slice(i + 1).map((s) => s.name);
}

/**
 * `zfs rollback -r <ds>@<from>` for the copy and each of its descendants that has `@from` (a `-R` stream replicated
 * the children's snapshots too): destroys their later snapshots and returns them to `from`.
 */
export async function rollbackCopy(exec: Executor, dataset: string, from: string): Promise<void> {
  const tree = (await runChecked(exec, ['zfs', 'list', '-H', '-o', 'name', '-t', 'filesystem,volume', '-r', dataset])).split('\n').filter(Boolean);
  for (const ds of tree) {
    if (!(await listSnapshots(exec, ds)).some((s) => s.name === from)) continue;
    await runChecked(exec, ['zfs', 'rollback', '-r', `${ds}@${from}`]);
  }
}
