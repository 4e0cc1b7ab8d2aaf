import { sql } from 'kysely';
import type { Db } from '#store/tables';
import type { JailConfig, JailInventory } from './types.ts';
import { activeJailTask, jailConfigOf } from './store.ts';
import { outranks } from '#domain/nodes/membership';

/** A newly seen jail: its persisted configuration starts as what the host has. */
function configFromInventory(j: JailInventory): JailConfig {
  return {
    dataset: j.dataset,
    path: j.path,
    hostname: j.hostname,
    jid: j.jid,
    hooks: j.hooks,
    cores: j.cpuSet.length ? j.cpuSet.length : null,
    cpuSet: j.cpuSet,
    memoryBytes: j.memoryBytes,
    host: j,
  };
}

/** A known jail: what the host reports replaces the observed fields; the persisted configuration stays. */
function mergeInventory(current: JailConfig, j: JailInventory): JailConfig {
  return { ...current, dataset: j.dataset, path: j.path, hostname: j.hostname, jid: j.jid, host: j };
}

const reportedJailIds = (inventory: unknown): number[] => {
  const jails = (inventory as { jails?: Array<{ ctid?: unknown }> } | null)?.jails;
  return Array.isArray(jails) ? jails.map((j) => Number(j?.ctid)).filter(Number.isInteger) : [];
};

const reportsJails = (inventory: unknown): boolean => Array.isArray((inventory as { jails?: unknown } | null)?.jails);

const hasActiveTask = async (trx: Db, ctid: number): Promise<boolean> => (await activeJailTask(trx, ctid)) !== undefined;

/**
 * Projects a node's reported jails into `guests` (type `jail`). Called by the agent endpoints inside the
 * transaction that stores `nodes.inventory`. Rules:
 *  - `undefined` (the collector did not run) changes nothing; `[]` means the host has no managed jails.
 *  - a jail id already held by another node stays there while that node still reports it or a task runs on it
 *    (guest ids are unique across the cluster; E16 reports such clashes), and while that node has never
 *    reported (a seeded owner wins over whoever reports first). When the other node no longer reports it,
 *    the jail has moved (e.g. a migration whose success report was lost) and follows its host.
 *  - a jail row of this node that the host no longer reports is removed, unless a task runs on it.
 *  - a jail in `changed` (a task ended `success` on it after the report's collection began) keeps its persisted state.
 * Returns the ids it skipped as clashing.
 */
export async function applyJailInventory(
  trx: Db,
  nodeId: string,
  jails: JailInventory[] | undefined,
  changed: ReadonlySet<string> = new Set(),
): Promise<number[]> {
  if (!jails) return [];
  const clashes: number[] = [];
  const ids = jails.map((j) => j.ctid);
  const existing = ids.length ? await trx.selectFrom('guests').selectAll().where('id', 'in', ids).execute() : [];
  const byId = new Map(existing.map((r) => [r.id, r]));
  for (const j of jails) {
    const row = byId.get(j.ctid);
    if (!row) {
      await trx
        .insertInto('guests')
        .values({ id: j.ctid, type: 'jail', node_id: nodeId, name: j.name, state: j.state, config: JSON.stringify(configFromInventory(j)) })
        .execute();
      continue;
    }
    if (row.type !== 'jail' || row.node_id !== nodeId) {
      const owner = row.type === 'jail' ? await trx.selectFrom('nodes').select('inventory').where('id', '=', row.node_id).executeTakeFirst() : undefined;
      // an owner that never reported its jails (a seeded node whose agent has not started yet) has not lost one
      const moved =
        row.type === 'jail' &&
        ((reportsJails(owner?.inventory) && !reportedJailIds(owner?.inventory).includes(j.ctid)) || (await outranks(trx, nodeId, row.node_id))) &&
        !(await hasActiveTask(trx, j.ctid));
      if (!moved) {
        clashes.push(j.ctid);
        continue;
      }
    }
    const config = mergeInventory(jailConfigOf(row.config), j);
    // a jail of this node a task changed after the report's collection began (a power task put its new
    // state): the reported state may be the one before that change, so the persisted one stays
    const held = row.node_id === nodeId && changed.has(`jail:${j.ctid}`);
    await trx
      .updateTable('guests')
      .set({ node_id: nodeId, name: j.name, state: held ? row.state : j.state, config: JSON.stringify(config), updated_at: sql<Date>`now()` })
      .where('id', '=', j.ctid)
      .execute();
  }
  let gone = trx.selectFrom('guests').select('id').where('node_id', '=', nodeId).where('type', '=', 'jail');
  if (ids.length) gone = gone.where('id', 'not in', ids);
  for (const { id } of await gone.execute()) {
    if (!(await hasActiveTask(trx, id))) await trx.deleteFrom('guests').where('id', '=', id).execute();
  }
  return clashes;
}
