import type { Kysely, Transaction } from 'kysely';
import type { Database } from '#store/tables';
import { conflict, DomainError, unavailable } from '#shared/errors/domain-errors';
import { auditCommitted, auditInTransaction, beginAuditAttempt } from '#store/audit-scope';

const RETRYABLE = new Set(['40001', '40P01']); // serialization failure, deadlock
// 57014: a server-side statement_timeout (or cancel) — like a client-side query timeout, the store did not answer in time;
// 53300: the server is at max_connections ("sorry, too many clients already") — busy, so retry shortly, not a 500
const CONNECTION_CODES = new Set([
  '57014',
  '53300',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ENOTFOUND',
  '57P01',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08006',
]);

const codeOf = (err: unknown): string | undefined => (err as { code?: string })?.code;

function isConnectionError(err: unknown): boolean {
  const code = codeOf(err);
  if (code && CONNECTION_CODES.has(code)) return true;
  const msg = (err as Error)?.message ?? '';
  return /timeout exceeded when trying to connect|Connection terminated|connect ECONNREFUSED|Query read timeout/i.test(msg);
}

/** How a transaction is isolated: SERIALIZABLE unless the caller's writes are safe under READ COMMITTED. */
export type Isolation = 'serializable' | 'read committed';

/**
 * Runs `fn` as one SERIALIZABLE transaction, retried on serialization conflicts. PostgreSQL is the
 * cluster's consensus layer: a conflict that survives the retries is a conflict
 * cluster_leadership_changed; an unreachable store is unavailable, cluster_consensus_unavailable.
 * Inside an audited request (a mutation, shared/store/audit-scope.ts) its first transaction records the audit row.
 * `isolation: 'read committed'` is for writers that lock every row they read-modify-write (FOR UPDATE, or an
 * UPDATE of a counter): there a concurrent writer of the same row waits and then sees the committed value
 * instead of failing, which SERIALIZABLE makes a 40001 on a hot row.
 */
export async function inTransaction<T>(
  db: Kysely<Database>,
  fn: (trx: Transaction<Database>) => Promise<T>,
  attempts = 4,
  isolation: Isolation = 'serializable',
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      beginAuditAttempt();
      // within an audited request, the first transaction also writes the request's audit row
      const { result, auditId } = await db
        .transaction()
        .setIsolationLevel(isolation)
        .execute(async (trx) => {
          const result = await fn(trx);
          return { result, auditId: await auditInTransaction(trx) };
        });
      auditCommitted(auditId);
      return result;
    } catch (err) {
      const code = codeOf(err);
      if (code && RETRYABLE.has(code)) {
        if (attempt < attempts) {
          await new Promise((r) => setTimeout(r, 5 * attempt + Math.random() * 10));
          continue;
        }
        throw conflict('cluster_leadership_changed', 'the change conflicted with a concurrent change; retry the request');
      }
      throw mapStoreError(err);
    }
  }
}

/** Connection failures and statements the store did not answer in time become unavailable; everything else passes through. */
export function mapStoreError(err: unknown): unknown {
  // a domain error is already an answer (its detail may quote another server's ECONNREFUSED)
  if (err instanceof DomainError) return err;
  if (isConnectionError(err)) return unavailable('cluster_consensus_unavailable', 'the state store is unreachable or did not answer in time; retry shortly');
  return err;
}
