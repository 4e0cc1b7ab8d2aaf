import type { Transaction } from 'kysely';
import type { Database } from '#store/tables';
import type { TaskPlan } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';
import { conflict, notFound, ValidationError } from '#shared/errors/domain-errors';
import { guestStorage, requireOnline, type GuestSnapshot, type GuestStorage, type GuestType } from './guest-snapshots.ts';
import { snapshotNameProblem } from './names.ts';

/** Why a snapshot may not be destroyed here, or null: holds, clones, a backup job's own. */
function destroyRefusal(s: GuestSnapshot): string | null {
  if (s.backupJob !== null) return `${s.snapshot} is backup job ${s.backupJob}'s own snapshot (its retention removes it)`;
  if (s.holds.length) return `${s.snapshot} is held (${s.holds.map((h) => `"${h}"`).join(', ')}); release the holds first (zfs release)`;
  if (s.clones.length) return `${s.snapshot} has clones (${s.clones.join(', ')}); destroy or promote them first`;
  return null;
}

const guestPlan = (g: GuestStorage) => ({ nodeId: g.nodeId, resource: resourceKey.guest(g.type, g.id) });

function snapshotOf(g: GuestStorage, snapshot: string): GuestSnapshot {
  const s = g.snapshots.find((x) => x.snapshot === snapshot);
  if (!s) throw notFound('snapshot_not_found', `${g.type} ${g.id} has no snapshot ${snapshot} (its datasets: ${g.datasets.join(', ') || 'none'})`);
  return s;
}

/** Create: the same name on every dataset of the guest; 400 for a name ZFS refuses, 409 when it exists already. */
export async function planSnapshotCreate(trx: Transaction<Database>, type: GuestType, id: number, name: string): Promise<TaskPlan> {
  const g = await guestStorage(trx, type, id);
  if (!g.datasets.length) throw conflict('guest_has_no_datasets', `${type} ${id} has no ZFS dataset its host reports`);
  const problems = g.datasets.map((d) => snapshotNameProblem(d, name)).filter((p): p is string => p !== null);
  if (problems.length) throw new ValidationError([{ field: 'body.name', problem: problems[0]! }]);
  const taken = g.snapshots.filter((s) => s.name === name).map((s) => s.snapshot);
  if (taken.length) throw conflict('snapshot_exists', `${taken.join(', ')} exists already`);
  requireOnline(g);
  return { kind: 'snapshot.create', ...guestPlan(g), payload: { datasets: g.datasets, name } };
}

/**
 * Rollback: to the newest snapshot of its dataset, or — with `destroyNewer` — past newer ones, which are destroyed
 * (the answer names them). Without the flag, newer snapshots are a 409 naming them; with it, a newer one that is
 * held, cloned or a backup job's is a 409 too (rollback would have to destroy it).
 */
export async function planSnapshotRollback(
  trx: Transaction<Database>,
  type: GuestType,
  id: number,
  snapshot: string,
  destroyNewer: boolean,
): Promise<{ plan: TaskPlan; destroys: string[] }> {
  const g = await guestStorage(trx, type, id);
  const target = snapshotOf(g, snapshot);
  const own = g.snapshots.filter((s) => s.dataset === target.dataset);
  const newer = own.slice(own.indexOf(target) + 1);
  if (newer.length && !destroyNewer)
    throw conflict(
      'snapshot_not_newest',
      `newer snapshots of ${target.dataset} exist: ${newer.map((s) => s.snapshot).join(', ')}; roll back with destroyNewer: true to destroy them`,
      { wouldDestroy: newer.map((s) => s.snapshot) },
    );
  const refusals = newer.map(destroyRefusal).filter((r): r is string => r !== null);
  if (refusals.length) throw conflict('snapshot_protected', `rolling back would destroy: ${refusals.join('; ')}`);
  requireOnline(g);
  return {
    plan: { kind: 'snapshot.rollback', ...guestPlan(g), payload: { snapshot, destroyNewer, destroys: newer.map((s) => s.snapshot) } },
    destroys: newer.map((s) => s.snapshot),
  };
}

/** Destroy: 409 naming its holds or clones, or the backup job whose snapshot it is. */
export async function planSnapshotDestroy(trx: Transaction<Database>, type: GuestType, id: number, snapshot: string): Promise<TaskPlan> {
  const g = await guestStorage(trx, type, id);
  const why = destroyRefusal(snapshotOf(g, snapshot));
  if (why) throw conflict('snapshot_protected', why);
  requireOnline(g);
  return { kind: 'snapshot.destroy', ...guestPlan(g), payload: { snapshot } };
}
