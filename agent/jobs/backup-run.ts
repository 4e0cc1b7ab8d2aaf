import { setting } from '#shared/config/read';
import type { JobHandler } from './job.ts';
import { backupPeerId } from '#shared/agent-api/task-kinds';
import { backupSnapshotName } from '#shared/agent-api/backup-snapshot-names';
import { snapshot } from '../drivers/zfs/replication.ts';
import { beyondRetention, destroySnapshots, listSnapshots, newerThan, newestCommon, rollbackCopy } from '../drivers/zfs/backup-snapshots.ts';
import { isJobSnapshot } from '#shared/agent-api/backup-snapshot-names';
import { estimateStream, progressTicker, streamBackup } from '../drivers/zfs/backup-stream.ts';
import { isEncrypted } from '../drivers/zfs/stream-flags.ts';

/** How often a running stream reports its progress (HM_BACKUP_PROGRESS_MS, default 1 s: well within 2 s). */
const progressEveryMs = () => setting('HM_BACKUP_PROGRESS_MS');

const human = (n: number) => (n >= 1 << 30 ? `${(n / (1 << 30)).toFixed(2)} GiB` : n >= 1 << 20 ? `${(n / (1 << 20)).toFixed(1)} MiB` : `${n} B`);

/**
 * A backup job's run on its runner: a recursive snapshot `hm-backup-<job>-<UTC stamp>` of the source; the newest
 * job snapshot both sides hold (same name and GUID) makes the send incremental (`-I @common`), none makes it
 * full; the stream goes over SSH into the target (a member node or the job's SSH endpoint, both pinned); then
 * each side keeps the job's newest `retention` snapshots. Progress is the stream's byte count against the dry
 * run's estimate. A run cut off (agent killed) leaves its snapshot here and nothing on the target; the next run
 * starts from the newest common snapshot and carries it along.
 */
export const backupRun: JobHandler<'backup.run'> = async (ctx, p) => {
  if (!ctx.peer) throw new Error('this agent cannot reach other hosts (no peer SSH configured)');
  const source = ctx.exec;
  const target = ctx.peer(backupPeerId(p.target));
  try {
    const snap = backupSnapshotName(p.jobId, new Date());
    await ctx.progress('snapshot', 1, `zfs snapshot -r ${p.source}@${snap}`);
    await snapshot(source, `${p.source}@${snap}`);

    const [here, there] = await Promise.all([listSnapshots(source, p.source), listSnapshots(target, p.target.dataset)]);
    const from = newestCommon(p.jobId, here, there);
    const mode = from ? 'incremental' : 'full';
    // after a restore of an older snapshot the copy has snapshots after the common one that the source no longer
    // has: the copy goes back to the common one (its later snapshots are of the replaced history), or the receive
    // refuses it and so does every later run; an operator's snapshot among them is never destroyed: the run fails
    const stale = from ? newerThan(there, from) : [];
    if (from && stale.length) {
      const foreign = stale.filter((s) => !isJobSnapshot(p.jobId, s));
      if (foreign.length)
        throw new Error(
          `${p.target.dataset} has snapshots after ${from} that are not this job's (${foreign.join(', ')}): the restored history cannot be sent onto it; remove them or give the job a new target dataset`,
        );
      await ctx.progress('snapshot', 3, `discarded on the target, newer than ${from}: ${stale.join(', ')} (the history a restore replaced)`);
      await rollbackCopy(target, p.target.dataset, from);
    }
    // an encrypted source is sent raw: libzfs refuses `-R` of an encrypted dataset without `-w`
    const encrypted = await isEncrypted(source, p.source);
    const estimate = await estimateStream(source, p.source, snap, from, encrypted);
    await ctx.progress(
      `${mode} send`,
      5,
      `mode: ${mode}\nsend ${from ? `@${from} → ` : ''}${p.source}@${snap} to ${p.target.label}, estimated ${human(estimate)} (${estimate} bytes)`,
    );

    const ticker = progressTicker(progressEveryMs(), (bytes) =>
      ctx.progress(`${mode} send`, 5 + Math.min(85, Math.floor((bytes / Math.max(1, estimate)) * 85)), `sent ${human(bytes)} of ${human(estimate)}`),
    );
    let sent: Awaited<ReturnType<typeof streamBackup>>;
    try {
      sent = await streamBackup(source, target, from, { dataset: p.source, snap, encrypted }, p.target.dataset, ticker.onBytes);
    } finally {
      ticker.stop();
    }

    await ctx.progress('retention', 92, `${sent.output.trim()}\nsent ${human(sent.bytes)}`.trim());
    // the snapshot just received is on both sides now; each side keeps the job's newest `retention`
    const prunedSource = beyondRetention(p.jobId, await listSnapshots(source, p.source), p.retention);
    const prunedTarget = beyondRetention(p.jobId, await listSnapshots(target, p.target.dataset), p.retention);
    await destroySnapshots(source, p.source, prunedSource);
    await destroySnapshots(target, p.target.dataset, prunedTarget);
    await ctx.progress(
      'done',
      99,
      `retention ${p.retention}: pruned ${prunedSource.length} here (${prunedSource.join(', ') || '-'}), ${prunedTarget.length} on the target (${prunedTarget.join(', ') || '-'})`,
    );
    return { mode, snapshot: snap, from, bytes: sent.bytes, estimate, pruned: { source: prunedSource, target: prunedTarget } };
  } finally {
    await target.close?.().catch(() => undefined);
  }
};
