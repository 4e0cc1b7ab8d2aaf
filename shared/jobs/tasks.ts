import { conflict, invalid, notFound } from '#shared/errors/domain-errors';
import type { TaskRow, Db } from '#store/tables';
import { iso, offsetOf, type PageRequest } from '#store/paging';
import { ACTIVE_STATUSES, type TaskStatus } from '#shared/agent-api/task-status';
import type { TaskKind, TaskPayloads } from '#shared/agent-api/task-kinds';
import { taskKinds } from '#shared/agent-api/task-kinds';
import { noteAuditedTask } from '#store/audit-scope';
import type { TaskView } from '#shared/agent-api/tasks';

/** Who asked for a task: a token's principal, or the control plane itself (a plain name such as `agent-start`). */
export type Requester = { tokenId: number | null; name: string } | string;

export interface NewTask<K extends TaskKind = TaskKind> {
  kind: K;
  nodeId: string;
  resource: string;
  payload: TaskPayloads[K];
  requestedBy: Requester;
  /** the request's `Idempotency-Key`: a repeated key returns the first task instead of creating another */
  idempotencyKey?: string | null;
  /** what the key was used for (e.g. `POST /api/zfs/pools/x/replace-device`); a key reused elsewhere is 409 */
  requestRef?: string;
  /**
   * What the request changed in the store, as it was before (JSON): a task cancelled before it started is as if
   * never requested, and its capability's outcome puts this back (shared/domain/task-undo.ts). Dropped when the task ends.
   */
  undo?: unknown;
}

/** What the domain plans: the task minus who asked (the HTTP layer adds that from the request). */
export type TaskPlan<K extends TaskKind = TaskKind> = Omit<NewTask<K>, 'requestedBy' | 'idempotencyKey' | 'requestRef'>;

/** Creates a task in the caller's transaction (sent after commit); given to domain functions by the HTTP layer. */
export type Enqueue = (plan: TaskPlan) => Promise<TaskRow>;

/** Idempotency keys: what clients usually send (UUIDs, ULIDs, hashes), bounded. */
const IDEMPOTENCY_KEY = /^[\x21-\x7e]{1,255}$/;

/** The key itself, or 400 naming the header. */
export function checkIdempotencyKey(key: string): string {
  if (!IDEMPOTENCY_KEY.test(key)) throw invalid('invalid_idempotency_key', 'header.Idempotency-Key: must be 1–255 printable ASCII characters without spaces');
  return key;
}

const requester = (r: Requester) => (typeof r === 'string' ? { tokenId: null, name: r } : r);

/** The task an earlier request with this Idempotency-Key created, if any (409 when it was another request). */
export async function findIdempotentTask(db: Db, by: Requester, key: string, requestRef = ''): Promise<TaskRow | undefined> {
  const { tokenId } = requester(by);
  if (tokenId === null) return undefined;
  const row = await db.selectFrom('tasks').selectAll().where('requester_token_id', '=', tokenId).where('idempotency_key', '=', key).executeTakeFirst();
  if (row && requestRef && row.request_ref && row.request_ref !== requestRef) {
    throw conflict(
      'idempotency_key_reused',
      `Idempotency-Key "${key}" was already used for ${row.request_ref} (task ${row.id}); use a new key for a different request`,
    );
  }
  return row;
}

/** The active exclusive task holding a resource, if any. */
export async function activeExclusiveTask(db: Db, resource: string): Promise<TaskRow | undefined> {
  return db
    .selectFrom('tasks')
    .selectAll()
    .where('resource', '=', resource)
    .where('exclusive', '=', true)
    .where('status', 'in', ACTIVE_STATUSES)
    .executeTakeFirst();
}

const busy = (resource: string, t?: Pick<TaskRow, 'id' | 'kind' | 'status'>) =>
  conflict('resource_busy', t ? `${resource} is busy: task ${t.id} (${t.kind}) is ${t.status}` : `${resource} is busy with another exclusive task`);

/**
 * Creates a task inside the caller's transaction: the caller validates and persists its own
 * change in the same transaction, then calls `dispatchTask` after commit. Exclusive and busy → 409
 * `resource_busy` naming the active task (a unique index makes this hold under races too: the losing
 * transaction fails serialization, is retried by `inTransaction`, and then sees the winner). A repeated
 * Idempotency-Key of the same requester returns the existing task.
 */
export async function createTask<K extends TaskKind>(trx: Db, spec: NewTask<K>): Promise<TaskRow> {
  const by = requester(spec.requestedBy);
  const key = spec.idempotencyKey ?? null;
  if (key !== null) {
    checkIdempotencyKey(key);
    const existing = await findIdempotentTask(trx, by, key, spec.requestRef);
    if (existing) return existing;
  }
  const def = taskKinds[spec.kind];
  // at most one active exclusive task per resource (migration, restore, device replacement, …)
  if (def.exclusive) {
    const holder = await activeExclusiveTask(trx, spec.resource);
    if (holder) throw busy(spec.resource, holder);
  }
  const row = await trx
    .insertInto('tasks')
    .values({
      kind: spec.kind,
      node_id: spec.nodeId,
      resource: spec.resource,
      payload: JSON.stringify(spec.payload),
      exclusive: def.exclusive,
      requested_by: by.name,
      requester_token_id: by.tokenId,
      idempotency_key: by.tokenId === null ? null : key,
      request_ref: spec.requestRef ?? '',
      undo: spec.undo === undefined ? null : JSON.stringify(spec.undo),
    })
    // a concurrent winner that committed first surfaces as a serialization failure (retried by inTransaction);
    // without a SERIALIZABLE caller the conflict shows up here as no row
    .onConflict((oc) => oc.doNothing())
    .returningAll()
    .executeTakeFirst();
  if (row) {
    noteAuditedTask(row.id, row.resource);
    return row;
  }
  if (key !== null) {
    const existing = await findIdempotentTask(trx, by, key, spec.requestRef);
    if (existing) return existing;
  }
  throw busy(spec.resource, await activeExclusiveTask(trx, spec.resource));
}

export async function getTask(db: Db, id: number): Promise<TaskRow> {
  const row = await db.selectFrom('tasks').selectAll().where('id', '=', id).executeTakeFirst();
  if (!row) throw notFound('task_not_found', `task ${id} does not exist`);
  return row;
}

export type { TaskView } from '#shared/agent-api/tasks';

export function toTaskView(t: TaskRow): TaskView {
  return {
    id: t.id,
    kind: t.kind,
    nodeId: t.node_id,
    resource: t.resource,
    status: t.status,
    phase: t.phase,
    progress: t.progress,
    output: t.output,
    error: t.error,
    result: t.result ?? null,
    requestedBy: t.requested_by,
    exclusive: t.exclusive,
    attempts: t.attempts,
    cancelRequestedAt: iso(t.cancel_requested_at),
    createdAt: iso(t.created_at)!,
    startedAt: iso(t.started_at),
    finishedAt: iso(t.finished_at),
    updatedAt: iso(t.updated_at)!,
  };
}

export interface TaskFilter extends PageRequest {
  resource?: string;
  status?: TaskStatus;
  nodeId?: string;
  kind?: string;
}

/** `GET /api/tasks`: newest first, page-numbered like every list of the API. */
export async function listTasks(db: Db, f: TaskFilter): Promise<{ data: TaskView[]; total: number }> {
  let q = db.selectFrom('tasks');
  if (f.resource) q = q.where('resource', '=', f.resource);
  if (f.status) q = q.where('status', '=', f.status);
  if (f.nodeId) q = q.where('node_id', '=', f.nodeId);
  if (f.kind) q = q.where('kind', '=', f.kind);
  const [{ n }] = await q.select((eb) => eb.fn.countAll<number>().as('n')).execute();
  const rows = await q.selectAll().orderBy('id', 'desc').limit(f.size).offset(offsetOf(f)).execute();
  return { data: rows.map(toTaskView), total: Number(n) };
}
