import { settableMountpoint } from '../drivers/zfs/altroot.ts';
import type { Executor } from '../executors/executor.ts';
import type { JobContext, JobHandler } from './job.ts';
import { backupPeerId, type BackupRestorePayload } from '#shared/agent-api/task-kinds';
import { jobSnapshotsOldestFirst } from '#shared/agent-api/backup-snapshot-names';
import { datasetExists, destroyIfExists } from '../drivers/zfs/replication.ts';
import { datasetProps, inheritKey, loadKey, receiveSnapshot, renameDataset, setCanmount, setKeylocation, setMountpoint } from '../drivers/zfs/restore.ts';
import { listSnapshots } from '../drivers/zfs/backup-snapshots.ts';
import { guestPower, type GuestPower } from '../drivers/guest-power.ts';
import { mountedRelative, mountTree, remountRelative } from '../drivers/zfs/mount.ts';
import { bestEffort } from './best-effort.ts';

/**
 * E15 on the job's runner: receive the snapshot from the job's target (over SSH, pinned) — or, when the target
 * lacks it, from this host's own copy — into `<dataset>.restoring`, check that the received snapshot's GUID is
 * the sent one, load its key when it is encrypted, stop the guest if it runs, swap the datasets (the old one
 * renamed to `<dataset>.pre-restore-<stamp>` and kept until the swap succeeded), mount the restored filesystems
 * (received unmounted, they stay so through the rename), start the guest again if it ran, then destroy the old
 * dataset. A failure at any step puts the original back in place — mounted as it was — (and the guest running
 * again if it ran) and destroys what was received.
 */

const NO_KEYFORMAT = new Set(['', '-', 'none']);
const stampOf = (d: Date) =>
  d
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d{3}Z$/, 'Z');

interface Origin {
  exec: Executor;
  dataset: string;
  where: 'target' | 'local';
}

/** The snapshot to restore and where to read it; throws naming which snapshot is missing where. */
async function locateSnapshot(ctx: JobContext, p: BackupRestorePayload, remote: Executor): Promise<{ snap: string; origin: Origin }> {
  const onTarget = (await listSnapshots(remote, p.source.dataset)).map((s) => s.name);
  const here = (await listSnapshots(ctx.exec, p.dataset)).map((s) => s.name);
  const targetLabel = `the target (${p.source.kind === 'node' ? `node ${p.source.nodeId}` : `${p.source.user}@${p.source.host}`}, ${p.source.dataset})`;
  let snap = p.snapshot;
  if (snap === null) {
    snap = jobSnapshotsOldestFirst(p.jobId, onTarget).at(-1) ?? jobSnapshotsOldestFirst(p.jobId, here).at(-1) ?? null;
    if (!snap) throw new Error(`backup job ${p.jobId} has no snapshot on ${targetLabel} nor on this host (${p.dataset})`);
    await ctx.progress('resolving the snapshot', 5, `no snapshot given: restoring the job's newest, ${snap}`);
  }
  if (onTarget.includes(snap)) return { snap, origin: { exec: remote, dataset: p.source.dataset, where: 'target' } };
  if (here.includes(snap)) {
    await ctx.progress('resolving the snapshot', 6, `snapshot ${snap} is missing on ${targetLabel}: restoring this host's copy ${p.dataset}@${snap}`);
    return { snap, origin: { exec: ctx.exec, dataset: p.dataset, where: 'local' } };
  }
  throw new Error(`snapshot ${snap} is missing on ${targetLabel} and on this host (${p.dataset}@${snap})`);
}

/** The GUID of `dataset@snap`, or null when there is no such snapshot. */
const guidOf = async (exec: Executor, dataset: string, snap: string) => (await listSnapshots(exec, dataset)).find((s) => s.name === snap)?.guid ?? null;

/** Loads the key of an encrypted received dataset; the given format must be the dataset's `keyformat`. */
async function unlock(exec: Executor, dataset: string, p: BackupRestorePayload, warnings: string[]): Promise<void> {
  const props = await datasetProps(exec, dataset, ['keyformat', 'keystatus']);
  const format = props.keyformat?.value ?? 'none';
  if (NO_KEYFORMAT.has(format)) {
    if (p.encryptionKey !== undefined) warnings.push(`${dataset} is not encrypted: the encryption key was not needed`);
    return;
  }
  if (p.encryptionKey === undefined) throw new Error(`the received ${dataset} is encrypted (keyformat ${format}): give encryptionKey and encryptionKeyFormat`);
  if (p.encryptionKeyFormat !== format)
    throw new Error(`encryptionKeyFormat ${p.encryptionKeyFormat} does not match the keyformat of the received ${dataset} (${format})`);
  if (props.keystatus?.value === 'available') return;
  await loadKey(exec, dataset, format === 'raw' ? Buffer.from(p.encryptionKey, 'base64') : `${p.encryptionKey}\n`);
}

export const restoreBackup: JobHandler<'backup.restore'> = async (ctx, p) => {
  if (!ctx.peer) throw new Error('this agent cannot reach other hosts (no peer SSH configured)');
  const local = ctx.exec;
  const restoring = `${p.dataset}.restoring`;
  const old = `${p.dataset}.pre-restore-${stampOf(new Date())}`;
  const remote = ctx.peer(backupPeerId(p.source));
  const warnings: string[] = [];
  // what has been done, for the undo
  const done: Done = { received: false, stopped: false, oldMoved: false, oldMountpoint: null, originalMounted: [], restoredIn: false };
  let guest: GuestPower | null = null;
  let wasRunning = false;
  try {
    const { snap, origin } = await locateSnapshot(ctx, p, remote);
    await ctx.progress('receiving', 10, `receiving ${origin.dataset}@${snap} from ${origin.where === 'target' ? 'the target' : 'this host'} into ${restoring}`);
    if (await destroyIfExists(local, restoring)) warnings.push(`a leftover ${restoring} was destroyed first`);
    done.received = true;
    await receiveSnapshot(origin.exec, origin.dataset, snap, local, restoring);

    await ctx.progress('verifying', 60);
    const sent = await guidOf(origin.exec, origin.dataset, snap);
    const got = await guidOf(local, restoring, snap);
    if (!sent || sent !== got) throw new Error(`verification failed: ${restoring}@${snap} has GUID ${got ?? '(none)'}, the sent snapshot ${sent ?? '(none)'}`);
    await unlock(local, restoring, p, warnings);

    const hasOriginal = await datasetExists(local, p.dataset);
    const original = hasOriginal ? await datasetProps(local, p.dataset, ['mountpoint', 'canmount', 'encryptionroot', 'keylocation']) : {};
    // as `zfs set` takes it: `zfs get` shows it under the pool's altroot, if any (libzfs_dataset.c zfs_prop_get)
    const localMountpoint =
      original.mountpoint?.source === 'local' && original.mountpoint.value.startsWith('/')
        ? await settableMountpoint(local, p.dataset, original.mountpoint.value)
        : null;
    // the original's own canmount (noauto or off) carries over; the received copy has the default, on
    const localCanmount = original.canmount?.source === 'local' && original.canmount.value !== 'on' ? original.canmount.value : null;

    guest = await guestPower(local, p.guest);
    wasRunning = await guest.running();
    await ctx.progress('stopping the guest', 70, wasRunning ? `stopping ${p.guest!.type} ${p.guest!.id}` : undefined);
    if (wasRunning) {
      done.stopped = true;
      await guest.stop();
    }

    await ctx.progress('swapping the datasets', 80);
    if (hasOriginal) {
      done.originalMounted = await mountedRelative(local, p.dataset);
      await renameDataset(local, p.dataset, old);
      done.oldMoved = true;
      if (localMountpoint) {
        // the old dataset leaves the guest's path free, kept beside it until the swap succeeded
        await setMountpoint(local, old, `${localMountpoint}.pre-restore`);
        done.oldMountpoint = localMountpoint;
      }
    }
    await renameDataset(local, restoring, p.dataset);
    done.restoredIn = true;
    if (localMountpoint) await setMountpoint(local, p.dataset, localMountpoint);
    if (localCanmount) await setCanmount(local, p.dataset, localCanmount);
    await restoreEncryptionRoot(local, p.dataset, original);
    await ctx.progress('mounting the restored dataset', 85);
    await mountTree(local, p.dataset);
    // what was mounted before is mounted again, a canmount=noauto root too (zfs mount names it; mount -a would not)
    await remountRelative(local, p.dataset, done.originalMounted);

    if (wasRunning) {
      await ctx.progress('starting the guest', 90);
      await guest.start();
    }
    await ctx.progress('removing the old dataset', 95);
    if (hasOriginal) {
      try {
        await destroyIfExists(local, old);
      } catch (e) {
        warnings.push(`the old dataset ${old} could not be destroyed: ${(e as Error).message}`);
      }
    }
    return {
      jobId: p.jobId,
      dataset: p.dataset,
      snapshot: snap,
      from: origin.where,
      guid: got,
      guest: p.guest && guest.present ? { ...p.guest, state: wasRunning ? 'running' : 'stopped' } : null,
      warnings,
    };
  } catch (err) {
    const problems = await undo(local, p.dataset, restoring, old, done, guest, wasRunning);
    const e = err as Error;
    throw new Error(
      `${e.message}${problems.length ? `; undo incomplete: ${problems.join('; ')}` : `; undone: ${p.dataset} is the original${wasRunning ? ' and the guest runs again' : ''}`}`,
    );
  } finally {
    await remote.close?.().catch(() => undefined);
  }
};

/**
 * A raw stream (`zfs send -w`) arrives as its own encryption root with keylocation=prompt, whatever the original
 * was (seen on OpenZFS 2.3.2, test/real-zfs/backup-encrypted.test.ts: the kernel gives a raw-received dataset its
 * own key object with keylocation=prompt, module/zfs/dsl_crypt.c dsl_crypto_recv_raw_key_sync). Left so, nothing loads its key at the next boot. So the restored
 * dataset gets the original's arrangement back: a dataset that inherited its key from an encryption root above
 * it inherits it again (`zfs change-key -i`: both keys are loaded now), one that was its own encryption root gets
 * its original keylocation back.
 */
async function restoreEncryptionRoot(exec: Executor, dataset: string, original: Record<string, { value: string; source: string }>): Promise<void> {
  const root = original.encryptionroot?.value;
  if (!root || root === '-' || root === '') return;
  const now = await datasetProps(exec, dataset, ['encryptionroot', 'keylocation']);
  if (now.encryptionroot?.value !== dataset) return;
  if (root !== dataset) {
    // the original's encryption root was above it: the parent's tree, still in place
    await inheritKey(exec, dataset);
    return;
  }
  const keylocation = original.keylocation?.value;
  if (keylocation && keylocation !== '-' && keylocation !== now.keylocation?.value) await setKeylocation(exec, dataset, keylocation);
}

/** What a restore has done so far, for the undo. */
interface Done {
  received: boolean;
  stopped: boolean;
  oldMoved: boolean;
  oldMountpoint: string | null;
  /** the original's filesystems that were mounted before the swap, relative to its name */
  originalMounted: string[];
  restoredIn: boolean;
}

/** Puts the original back: the restored copy out of its place and destroyed, the old one renamed back and mounted as it was, the guest started. */
async function undo(
  exec: Executor,
  dataset: string,
  restoring: string,
  old: string,
  done: Done,
  guest: GuestPower | null,
  wasRunning: boolean,
): Promise<string[]> {
  const { problems, attempt } = bestEffort();
  if (done.restoredIn) await attempt(`move the restored copy out of ${dataset}`, () => renameDataset(exec, dataset, restoring));
  if (done.received) await attempt(`destroy ${restoring}`, () => destroyIfExists(exec, restoring));
  if (done.oldMountpoint) await attempt(`mount ${old} at ${done.oldMountpoint} again`, () => setMountpoint(exec, old, done.oldMountpoint!));
  if (done.oldMoved) {
    await attempt(`rename ${old} back to ${dataset}`, () => renameDataset(exec, old, dataset));
    await attempt(`mount ${dataset} again`, () => remountRelative(exec, dataset, done.originalMounted));
  }
  if (guest && wasRunning) {
    await attempt('start the guest again', async () => {
      if (!(await guest.running())) await guest.start();
    });
  }
  return problems;
}
