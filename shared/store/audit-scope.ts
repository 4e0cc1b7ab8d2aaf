import { AsyncLocalStorage } from 'node:async_hooks';
import { recordAudit, type AuditEntry } from '#store/audit';
import type { Transaction } from 'kysely';
import type { Database } from '#store/tables';

/**
 * The audit of one mutating request, carried through its async calls: the first transaction the request
 * commits writes the audit row as its last statement, so the change and its record commit together (or
 * neither does). Tasks created in that transaction name the row's task and resource.
 */
export interface AuditScope {
  entry: Omit<AuditEntry, 'status' | 'taskId'>;
  /** the row, once a transaction that wrote it has committed */
  recordedId?: number;
  /** tasks created by the transaction attempt in progress (reset on each retry) */
  attemptTasks: { id: number; resource: string }[];
  /** a routine report: its transactions write no row; the request gets one only when refused */
  routine?: boolean;
}

const storage = new AsyncLocalStorage<AuditScope>();

export const runAudited = <T>(scope: AuditScope, fn: () => Promise<T>): Promise<T> => storage.run(scope, fn);

/** Called by the task store: a task created in this request's transaction. */
export function noteAuditedTask(id: number, resource: string): void {
  storage.getStore()?.attemptTasks.push({ id, resource });
}

/**
 * Called by a handler inside its transaction once it knows whether the report changed anything: a report that
 * changed nothing (an agent's unchanged inventory) is routine and leaves no audit row unless refused.
 */
export function auditAsRoutine(routine: boolean): void {
  const scope = storage.getStore();
  if (scope) scope.routine = routine;
}

/**
 * Names what the request acts on in its audit row when the path does not (a token created or revoked:
 * `token:<id>`); identifiers only, as the rest of the row.
 */
export function auditResource(resource: string): void {
  const scope = storage.getStore();
  if (scope) scope.entry.resource = resource;
}

/** At the start of each transaction attempt. */
export function beginAuditAttempt(): void {
  const scope = storage.getStore();
  if (scope && scope.recordedId === undefined) scope.attemptTasks = [];
}

/** As the transaction's last statement: the row, unless an earlier transaction of the request wrote it. */
export async function auditInTransaction(trx: Transaction<Database>): Promise<number | undefined> {
  const scope = storage.getStore();
  if (!scope || scope.recordedId !== undefined || scope.routine) return undefined;
  const task = scope.attemptTasks[0];
  return recordAudit(trx, { ...scope.entry, resource: task?.resource || scope.entry.resource, status: null, taskId: task?.id ?? null });
}

/** After commit: the row stands. */
export function auditCommitted(id: number | undefined): void {
  const scope = storage.getStore();
  if (scope && id !== undefined) scope.recordedId = id;
}
