import type { Selectable, Transaction } from 'kysely';
import { invalid, notFound } from '#shared/errors/domain-errors';
import type { Enqueue } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';
import type { Database, TunableSettingsTable, Db } from '#store/tables';
import type { ReapplySource } from '#domain/reapply-item';
import { targetNode } from '#domain/pools/target-node';
import { checkTunableValue } from './value.ts';
import type { TunableUndo } from './outcomes.ts';

/** sysctl OIDs: dotted names of letters, digits, `_`, `-` and `%` (as in `dev.ix.0.%desc`). */
export const tunableNameSchema = { type: 'string', minLength: 1, maxLength: 128, pattern: '^[A-Za-z0-9_%-]+(\\.[A-Za-z0-9_%-]+)*$' } as const;
export const tunableValueSchema = { type: 'string', maxLength: 1024 } as const;

/** E11's record: the persisted setting and the task applying it. */
function toSettingView(s: Selectable<TunableSettingsTable>) {
  return {
    nodeId: s.node_id,
    name: s.name,
    value: s.value,
    type: s.type,
    previousValue: s.previous_value,
    taskId: s.task_id,
    updatedAt: s.updated_at.toISOString(),
  };
}
type TunableSettingView = ReturnType<typeof toSettingView>;

interface TunableRequest {
  nodeId?: string;
  name: string;
  value: string;
}

/**
 * E11: validates against the node's reported tunables (unknown 404, read-only 400, value outside its type
 * 400), persists the setting for re-application at agent start and queues `tunable.apply` (`sysctl
 * name=value`) — all in the caller's transaction. Settings of one tunable are applied in order (the task's
 * resource is its FIFO group), so the last request wins on the host as in the store.
 */
export async function setTunable(trx: Transaction<Database>, enqueue: Enqueue, req: TunableRequest, requestedBy: string): Promise<TunableSettingView> {
  const nodeId = await targetNode(trx, req.nodeId);
  const tunable = await trx.selectFrom('tunables').selectAll().where('node_id', '=', nodeId).where('name', '=', req.name).executeTakeFirst();
  if (!tunable) throw notFound('tunable_not_found', `tunable ${req.name} does not exist on node ${nodeId}`);
  if (!tunable.writable) throw invalid('tunable_read_only', `body.name: tunable ${req.name} is read-only`);
  const check = checkTunableValue(tunable.type, req.value);
  if (!check.ok) throw invalid('invalid_tunable_value', `body.value: ${check.problem}`);

  const before = await trx.selectFrom('tunable_settings').selectAll().where('node_id', '=', nodeId).where('name', '=', req.name).executeTakeFirst();
  const undo: TunableUndo = {
    setting: before ? { ...before, created_at: before.created_at.toISOString(), updated_at: before.updated_at.toISOString() } : null,
  };
  const task = await enqueue({ kind: 'tunable.apply', nodeId, resource: resourceKey.tunable(req.name), payload: { name: req.name, value: check.value }, undo });
  const fields = { value: check.value, type: tunable.type, previous_value: tunable.value, task_id: task.id, requested_by: requestedBy, updated_at: new Date() };
  const row = await trx
    .insertInto('tunable_settings')
    .values({ node_id: nodeId, name: req.name, ...fields })
    .onConflict((oc) => oc.columns(['node_id', 'name']).doUpdateSet(fields))
    .returningAll()
    .executeTakeFirstOrThrow();
  return toSettingView(row);
}

/** At agent start: every persisted tunable of the node, applied again (shared/domain/reapply-sources.ts). */
export const tunableReapplySource: ReapplySource = async (db: Db, nodeId: string) => {
  const rows = await db.selectFrom('tunable_settings').select(['name', 'value']).where('node_id', '=', nodeId).orderBy('name').execute();
  return rows.map((r) => ({ kind: 'tunable.apply' as const, resource: resourceKey.tunable(r.name), payload: { name: r.name, value: r.value } }));
};
