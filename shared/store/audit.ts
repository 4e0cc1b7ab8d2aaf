import type { Db } from '#store/tables';

/**
 * One audit entry: who, from where, what, on which resource, with which outcome. It holds identifiers only —
 * never a token, a password, a key, cloud-init user data or any request body.
 */
export interface AuditEntry {
  tokenId: number | null;
  tokenName: string;
  role: string;
  sourceIp: string;
  method: string;
  /** the route template (`/api/jail/{ctid}/migrate`), or the raw path when no route matched */
  route: string;
  resource: string;
  /** the HTTP status answered; null when the change commits before the answer is known */
  status: number | null;
  taskId: number | null;
  requestId: string;
}

const MAX_TEXT = 500;
/** Storable and bounded: a refused request's path may hold NUL or a lone surrogate, which text columns refuse. */
const clip = (s: string) => {
  const text = s.replaceAll('\u0000', '\uFFFD').replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, '\uFFFD');
  return text.length > MAX_TEXT ? text.slice(0, MAX_TEXT) : text;
};

/** Writes one audit row on `db` (pass the mutation's transaction to record it with the change); returns its id. */
export async function recordAudit(db: Db, e: AuditEntry): Promise<number> {
  const row = await db
    .insertInto('audit_log')
    .values({
      token_id: e.tokenId,
      token_name: clip(e.tokenName),
      role: clip(e.role),
      source_ip: clip(e.sourceIp),
      method: clip(e.method),
      route: clip(e.route),
      resource: clip(e.resource),
      status: e.status,
      task_id: e.taskId,
      request_id: clip(e.requestId),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return Number(row.id);
}

/** Sets the answered status (and the task, when the row has none) of a row recorded inside its transaction. */
export async function completeAudit(db: Db, id: number, status: number, taskId: number | null): Promise<void> {
  await db
    .updateTable('audit_log')
    .set((eb) => ({ status, task_id: eb.fn.coalesce('task_id', eb.val(taskId)) }))
    .where('id', '=', id)
    .execute();
}
