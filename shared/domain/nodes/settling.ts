import { sql } from 'kysely';
import type { Db } from '#store/tables';
import { ACTIVE_STATUSES } from '#shared/agent-api/task-status';

/**
 * The resources (`vm:7`, `group:3`) of a node that a report may describe as they were before a task changed
 * them: those with a task still queued or running, and — when the agent says its report was collected after
 * every task outcome the store had recorded up to `asOf` (its `asOf`, in the store's own time, from the finish
 * answers it got) — those with a task that ended later than that. A task that ended `success` has already put
 * its new state in the read model (the request persisted it): a report that may predate the change must not
 * take it back. The agent's next report, collected after the change, describes them again. (Times are
 * compared to the millisecond, the precision the API answers them in.)
 */
export async function settlingResources(db: Db, nodeId: string, asOf?: string): Promise<Settling> {
  let q = db.selectFrom('tasks').select(['resource', 'status']).where('node_id', '=', nodeId);
  q = asOf
    ? q.where((eb) => eb.or([eb('status', 'in', ACTIVE_STATUSES), eb(sql`date_trunc('milliseconds', finished_at)`, '>', new Date(asOf))]))
    : q.where('status', 'in', ACTIVE_STATUSES);
  const rows = await q.execute();
  return new Settling(
    rows.map((r) => r.resource),
    rows.filter((r) => r.status === 'success').map((r) => r.resource),
  );
}

/**
 * The settling resources, and among them `changed`: those a task that ended `success` after the report's
 * collection began has changed (a power task put the guest's new state): whatever else is queued on them, the
 * report's view of them is older than the store's.
 */
export class Settling extends Set<string> {
  readonly changed: ReadonlySet<string>;
  constructor(all: Iterable<string> = [], changed: Iterable<string> = []) {
    super(all);
    this.changed = new Set(changed);
  }
}
