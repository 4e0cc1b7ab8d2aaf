/**
 * Names of the snapshots a backup job takes: `hm-backup-<jobId>-<UTC yyyymmddThhmmssZ>`. The job id makes a
 * job's snapshots its own (retention never prunes another job's or an operator's snapshot); the UTC stamp makes
 * name order creation order.
 */
const PREFIX = 'hm-backup-';
const STAMP = /^\d{8}T\d{6}Z$/;

export const backupSnapshotPrefix = (jobId: number) => `${PREFIX}${jobId}-`;

export function backupSnapshotName(jobId: number, at: Date): string {
  const stamp = at
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');
  return `${backupSnapshotPrefix(jobId)}${stamp}`;
}

/** Whether a snapshot name (the part after `@`) is one of this job's. */
export function isJobSnapshot(jobId: number, name: string): boolean {
  const prefix = backupSnapshotPrefix(jobId);
  return name.startsWith(prefix) && STAMP.test(name.slice(prefix.length));
}

/** This job's snapshot names among `names`, oldest first. */
export const jobSnapshotsOldestFirst = (jobId: number, names: readonly string[]): string[] => names.filter((n) => isJobSnapshot(jobId, n)).sort();
