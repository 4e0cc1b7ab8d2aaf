import { sql, type Transaction } from 'kysely';
import { conflict, unavailable, ValidationError } from '#shared/errors/domain-errors';
import type { Database, TaskRow, Db } from '#store/tables';
import type { TaskPlan } from '#shared/jobs/tasks';
import type { TaskOf } from '#shared/jobs/lifecycle';
import { resourceKey } from '#shared/agent-api/task-kinds';
import { onlineSql } from '#store/presence';
import { requireJail, requireNoActiveTask } from './store.ts';
import type { JailConfig } from './types.ts';
import { requireNode } from '#domain/nodes/require-node';

interface MigrationResult {
  guestId: number;
  outcome: 'queued';
  taskId: number;
}

/** The guest ids a node's host reports (jails and VMs), from its last inventory. */
export function reportedGuestIds(inventory: unknown): number[] {
  const inv = (inventory ?? {}) as { jails?: Array<{ ctid?: unknown }>; vms?: Array<{ rid?: unknown }> };
  const ids = [...(Array.isArray(inv.jails) ? inv.jails.map((j) => j?.ctid) : []), ...(Array.isArray(inv.vms) ? inv.vms.map((v) => v?.rid) : [])];
  return ids.map(Number).filter(Number.isInteger);
}

const nodeQuery = (db: Db) => db.selectFrom('nodes').select(['id', 'ip', 'status', 'inventory', onlineSql('nodes').as('online')]);

/** `targetNodeUuid` omitted: the online member with the fewest guests, other than the source (ties → lowest id). */
async function pickTarget(trx: Db, sourceId: string) {
  const best = await trx
    .selectFrom('nodes')
    .select(['nodes.id'])
    .select((eb) => eb.selectFrom('guests').whereRef('guests.node_id', '=', 'nodes.id').select(sql<number>`count(*)`.as('n')).as('guests'))
    .where('nodes.status', '=', 'member')
    .where('nodes.id', '!=', sourceId)
    .where(onlineSql('nodes'))
    .orderBy('guests')
    .orderBy('nodes.id')
    .executeTakeFirst();
  if (!best) throw unavailable('no_migration_target', 'no other online cluster member can take the jail');
  return best.id;
}

/**
 * E20 validation and planning, in the caller's transaction (acceptTask): the jail exists (404) and is at rest
 * (no queued or running task, 409); the target exists (404), differs from the source (400), is a member (409),
 * is online (503) and its host has no guest with the same id (409); the source's agent, which does the work,
 * must be online too (503). The task is exclusive on `jail:<ctid>`, so E3/E4 answer 409 until it ends.
 */
export async function planMigration(trx: Transaction<Database>, ctid: number, targetNodeUuid: string | undefined): Promise<TaskPlan> {
  const jail = await requireJail(trx, ctid);
  await requireNoActiveTask(trx, ctid);
  const targetId = targetNodeUuid ?? (await pickTarget(trx, jail.node_id));
  const target = await requireNode(trx, targetId);
  if (target.id === jail.node_id) {
    throw new ValidationError([{ field: 'body.targetNodeUuid', problem: `must differ from the jail's current node ${jail.node_id}` }]);
  }
  if (target.status !== 'member') throw conflict('node_not_member', `cluster node ${target.id} is ${target.status}, not a cluster member`);
  if (!target.online) throw unavailable('node_offline', `cluster node ${target.id} is offline`);
  if (reportedGuestIds(target.inventory).includes(ctid)) {
    throw conflict('guest_id_conflict', `cluster node ${target.id} already has a guest with id ${ctid}`);
  }
  const source = await nodeQuery(trx).where('id', '=', jail.node_id).executeTakeFirstOrThrow();
  if (!source.online) throw unavailable('node_offline', `cluster node ${source.id}, which holds jail ${ctid}, is offline`);
  const config: JailConfig = jail.config;
  if (!config.dataset) throw conflict('jail_not_on_zfs', `jail ${ctid} has no ZFS dataset to replicate`);
  if (!target.ip) throw unavailable('node_address_unknown', `cluster node ${target.id} has not reported its address`);
  return {
    kind: 'jail.migrate',
    nodeId: jail.node_id,
    resource: resourceKey.jail(ctid),
    // the target's address and host keys as they are now: the source's agent pins the stream to these
    payload: { ctid, name: jail.name, dataset: config.dataset, target: { nodeId: target.id, address: target.ip, hostKeys: target.ssh_host_keys } },
  };
}

export const migrationResult = (task: Pick<TaskRow, 'id' | 'payload'>): MigrationResult => ({
  guestId: (task.payload as { ctid: number }).ctid,
  outcome: 'queued',
  taskId: task.id,
});

/**
 * A successful `jail.migrate` moves the guest to the target node, in the transaction that records the
 * task's success (called by the task-finish path). The jail's persisted configuration travels with it.
 */
export async function completeMigration(trx: Db, task: TaskOf<'jail.migrate'>): Promise<void> {
  if (task.status !== 'success') return;
  const p = task.payload;
  const state = task.result?.state;
  await trx
    .updateTable('guests')
    .set({ node_id: p.target.nodeId, ...(state ? { state } : {}), updated_at: sql<Date>`now()` })
    .where('id', '=', p.ctid)
    .where('type', '=', 'jail')
    .where('node_id', '=', task.node_id)
    .execute();
}
