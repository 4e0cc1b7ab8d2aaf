import type { Executor } from '../executors/executor.ts';
import type { JobHandler } from './job.ts';
import { findJail, isRunning, startJail, stopJail } from '../drivers/jail.ts';
import { readOrNull, removeFiles, removeTrees, writeFiles } from '../drivers/host-files.ts';
import { HOST_HOOK_PHASES, jailFiles } from '../drivers/jail-layout.ts';
import {
  datasetExists,
  destroyIfExists,
  estimateSend,
  loadKeyFromLocation,
  migrationEncryption,
  mountpointPath,
  sendTo,
  setMountpointTo,
  snapshot,
  type Stream,
} from '../drivers/zfs/replication.ts';
import { mountForUse } from '../drivers/zfs/mount.ts';
import { removeJournal, writeJournal, type MigrationJournal, type MigrationPhase } from './jail-migration-journal.ts';
import { bestEffort } from './best-effort.ts';

/**
 * E20 on the source host: replicate the jail's dataset to the target over SSH (initial full send
 * while the jail keeps running), stop it, send the final increment, copy its conf and host-side hook scripts,
 * start it on the target, then remove it here. Phases are reported as progress. Any failure before the jail
 * runs on the target undoes what was done (the jail runs here again, the target keeps nothing); an agent
 * crash in between is undone — or, once committed, finished — at the next start (jail-migration-recovery.ts).
 */

/** Migrations this process is running; recovery leaves their journals alone. */
export const activeMigrations = new Set<number>();

const snapName = (taskId: number, n: number) => `hm-migrate-${taskId}-${n}`;

/** Files of the jail that live outside its dataset: the conf, host-side hook scripts and the limits script. */
async function hostConfigFiles(exec: Executor, ctid: number): Promise<Record<string, string>> {
  const j = await findJail(exec, ctid);
  const files: Record<string, string> = { [j.files.conf]: j.confText };
  // every hook script is a host file (none inside the jail's dataset)
  const paths = [...HOST_HOOK_PHASES.map((p) => j.files.hookFile(p)), j.files.limits];
  for (const path of paths) {
    const content = await readOrNull(exec, path);
    if (content !== null) files[path] = content;
  }
  return files;
}

/** Undoes a migration that did not commit: the target keeps nothing, the jail runs here if it ran before. */
export async function rollBack(source: Executor, target: Executor | null, j: MigrationJournal): Promise<string[]> {
  const { problems, attempt } = bestEffort();
  const reachedTarget = j.phase !== 'prepare';
  if (reachedTarget) {
    if (!target) problems.push(`target ${j.target.address} was not reachable: its copy of ${j.dataset} may remain`);
    else {
      const { conf, dir } = jailFiles(j.ctid, j.name);
      await attempt('stop on target', async () => {
        if (await isRunning(target, j.name)) await stopJail(target, j.name, conf);
      });
      await attempt('remove target files', () => removeFiles(target, j.targetFiles));
      await attempt('remove target jail directory', () => removeTrees(target, [dir]));
      await attempt('destroy target dataset', () => destroyIfExists(target, j.dataset));
    }
  }
  await attempt('restart here', async () => {
    if (j.wasRunning && !(await isRunning(source, j.name))) await startJail(source, j.name, j.sourceFiles.conf);
  });
  if (j.snapshots.length) await attempt('destroy the migration snapshots', () => destroyIfExists(source, `${j.dataset}@${j.snapshots.join(',')}`));
  if (!problems.length) await removeJournal(source, j.ctid);
  return problems;
}

/** Finishes a committed migration: the jail is removed here; the target keeps it (without our snapshots). */
export async function finishCommitted(source: Executor, target: Executor | null, j: MigrationJournal): Promise<string[]> {
  const { problems: warnings, attempt } = bestEffort();
  await attempt('stop here', async () => {
    if (await isRunning(source, j.name)) await stopJail(source, j.name, j.sourceFiles.conf);
  });
  await attempt('remove conf here', () => removeFiles(source, [j.sourceFiles.conf]));
  await attempt('remove jail directory here', () => removeTrees(source, [j.sourceFiles.dir]));
  await attempt('destroy dataset here', () => destroyIfExists(source, j.dataset));
  if (target && j.snapshots.length)
    await attempt('destroy the migration snapshots on target', () => destroyIfExists(target, `${j.dataset}@${j.snapshots.join(',')}`));
  await removeJournal(source, j.ctid);
  return warnings;
}

/** The task's result once the jail is on the target (from the job, or from recovery after a crash). */
export const migrationResult = (j: MigrationJournal, warnings: string[]) => ({
  ctid: j.ctid,
  targetNodeId: j.target.nodeId,
  state: j.wasRunning ? ('running' as const) : ('stopped' as const),
  warnings,
});

export const migrateJail: JobHandler<'jail.migrate'> = async (ctx, p) => {
  if (!ctx.peer) throw new Error('this agent cannot reach other nodes (no peer SSH configured)');
  const source = ctx.exec;
  const jail = await findJail(source, p.ctid);
  if (jail.dataset !== p.dataset) throw new Error(`jail ${p.ctid} is on dataset ${jail.dataset ?? '(none)'} here, not ${p.dataset}`);
  // pinned to the key the control plane holds for the target node, at the address it registered
  const target = ctx.peer(p.target.nodeId);
  activeMigrations.add(p.ctid);
  const journal: MigrationJournal = {
    taskId: ctx.task.id,
    attempt: ctx.task.attempt ?? null,
    ctid: p.ctid,
    name: jail.name,
    dataset: p.dataset,
    target: p.target, // as the control plane planned it: the address and host keys ctx.peer pins to
    wasRunning: await isRunning(source, jail.name),
    phase: 'prepare',
    snapshots: [],
    targetFiles: [],
    sourceFiles: { conf: jail.files.conf, dir: jail.files.dir },
  };
  const step = async (phase: MigrationPhase, percent: number, label: string) => {
    journal.phase = phase;
    await writeJournal(source, journal);
    await ctx.progress(label, percent, `phase: ${label}`);
  };
  try {
    await ctx.progress('preparing', 2, `phase: preparing (target ${journal.target.nodeId} at ${journal.target.address})`);
    if (await datasetExists(target, p.dataset)) throw new Error(`the target already has a dataset ${p.dataset}`);
    // a full receive creates the dataset under its parent, which must exist there (libzfs: "cannot open '<parent>'")
    const parent = p.dataset.includes('/') ? p.dataset.slice(0, p.dataset.lastIndexOf('/')) : null;
    if (parent && !(await datasetExists(target, parent)))
      throw new Error(`the target has no dataset ${parent} to receive ${p.dataset} into: create it there first`);
    const encryption = await migrationEncryption(source, p.dataset);
    // where the jail's files are here (normally the conf's path); the target mounts the copy at the same place
    const mountAt = await mountpointPath(source, p.dataset, jail.path);
    if ((await readOrNull(target, jail.files.conf)) !== null) throw new Error(`the target already has a jail conf ${jail.files.conf}`);
    await writeJournal(source, journal);

    const s1 = snapName(ctx.task.id, 1);
    journal.snapshots.push(s1);
    await writeJournal(source, journal);
    await snapshot(source, `${p.dataset}@${s1}`);
    await step('initial-send', 5, 'initial full send');
    const stream = (snap: string, from: string | null): Stream => ({ dataset: p.dataset, snap, from, encryption });
    const full = await estimateSend(source, stream(s1, null));
    let last = 0;
    await sendTo(source, target, stream(s1, null), (n) => {
      const pct = 5 + Math.min(50, Math.floor((n / Math.max(1, full)) * 50));
      if (pct >= last + 5) {
        last = pct;
        void ctx.progress('initial full send', pct);
      }
    });

    await step('stopped', 60, journal.wasRunning ? 'stopping the jail' : 'jail is stopped');
    if (journal.wasRunning) await stopJail(source, jail.name, jail.files.conf);

    const s2 = snapName(ctx.task.id, 2);
    journal.snapshots.push(s2);
    await step('final-send', 65, 'final incremental send');
    await snapshot(source, `${p.dataset}@${s2}`);
    await sendTo(source, target, stream(s2, s1));
    // a raw stream arrives locked: the key from the keylocation the full receive set
    if (encryption) await loadKeyFromLocation(target, p.dataset);
    // set explicitly: an inherited mountpoint would come from the target's parent, not from here
    await setMountpointTo(target, p.dataset, mountAt);
    // received with -u: mounted here (a canmount=noauto root too), so the jail's files are at its path before it starts
    await mountForUse(target, p.dataset);

    await step('copied-config', 85, 'copying the jail configuration');
    const files = await hostConfigFiles(source, p.ctid);
    journal.targetFiles = Object.keys(files);
    await writeJournal(source, journal);
    await writeFiles(target, files);

    await step('starting-on-target', 90, journal.wasRunning ? 'starting on the target' : 'registering on the target');
    if (journal.wasRunning) await startJail(target, jail.name, jail.files.conf);

    await step('committed', 95, 'removing the jail here');
    const warnings = await finishCommitted(source, target, journal);
    return migrationResult(journal, warnings);
  } catch (err) {
    if (journal.phase === 'committed') throw err;
    const problems = await rollBack(source, target, journal);
    const e = err as Error;
    throw new Error(`${e.message}${problems.length ? `; undo incomplete: ${problems.join('; ')}` : '; undone: the jail stays on this node'}`);
  } finally {
    activeMigrations.delete(p.ctid);
    await target.close?.().catch(() => undefined);
  }
};
