import { sql, type Kysely } from 'kysely';
import type { Database } from '#store/tables';

/** A response as the fuzzer saw it. */
export interface FuzzResponse {
  status: number;
  text: string;
}

/** A 5xx the spec names for an operation, for a state the fuzzer does not set up (never a 500). */
export interface Declared5xx {
  status: 502 | 503 | 504;
  message: string;
}

/**
 * The named 5xx answers an operation may give whatever its input: E22 must reach the ACME server, which the
 * fuzzer does not run (502 `acme_unreachable`); E15's runner may be offline (503 `node_offline`).
 */
export const DECLARED_5XX: Record<string, readonly Declared5xx[]> = {
  E15: [{ status: 503, message: 'node_offline' }],
  E22: [{ status: 502, message: 'acme_unreachable' }],
};

/**
 * What every response must be, whatever came in: never a 5xx; exactly the envelope {status, message, error,
 * data}; on an error `status: "error"`, a reason, and `data` null (the one exception is a 409 whose spec entry
 * gives it data — `dataOnConflict`).
 */
export function envelopeProblems(res: FuzzResponse, dataOnConflict = false, declared: readonly Declared5xx[] = []): string[] {
  const out: string[] = [];
  const isDeclared = declared.some((d) => res.status === d.status && res.text.includes(`"message":"${d.message}"`));
  if (res.status >= 500 && !isDeclared) out.push(`answered ${res.status}`);
  let body: any;
  try {
    body = JSON.parse(res.text);
  } catch {
    return [...out, `body is not JSON: ${res.text.slice(0, 200)}`];
  }
  const keys = body && typeof body === 'object' && !Array.isArray(body) ? Object.keys(body).sort().join(',') : typeof body;
  if (keys !== 'data,error,message,status') return [...out, `not the envelope (members ${keys})`];
  if (typeof body.message !== 'string' || !body.message) out.push('message is not a non-empty string');
  if (res.status >= 400) {
    if (body.status !== 'error') out.push(`status "${body.status}" on a ${res.status}`);
    if (typeof body.error !== 'string' || !body.error) out.push('an error without a reason');
    if (body.data !== null && !(res.status === 409 && dataOnConflict)) out.push(`data ${JSON.stringify(body.data).slice(0, 200)} on a ${res.status}`);
  } else {
    if (body.status !== 'success') out.push(`status "${body.status}" on a ${res.status}`);
    if (body.error !== '') out.push('error is not "" on a success');
  }
  return out;
}

/**
 * Row counts of every table the API writes, in one query. Left out: telemetry (the agent that runs the accepted
 * tasks posts samples on its own schedule), and the two records a refusal is meant to write — the audit log
 * (every refused request and every mutation gets a row, the agent's own reports included) and the failed
 * authentication counts.
 */
export async function rowCounter(db: Kysely<Database>, ownNodes: () => readonly string[] = () => []): Promise<() => Promise<Record<string, number>>> {
  const { rows } = await sql<{ name: string }>`
    SELECT table_name AS name FROM information_schema.tables
    WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name NOT LIKE '%telemetry%' AND table_name NOT LIKE 'kysely%'
      AND table_name NOT IN ('audit_log', 'auth_failures')
    ORDER BY table_name`.execute(db);
  return async () => {
    // The store is shared with the suite's other files: the stack's sweeper may end their left-over tasks at any
    // moment, raising notifications (and their delivery events) for those files' nodes. Count those tables only
    // for the fuzzer's own nodes and node-less rows, so a background raise is not taken for a write by a 4xx.
    const own = ownNodes();
    const scoped = (name: string) =>
      BACKGROUND_RAISED.has(name) ? (own.length ? sql` WHERE node_id IS NULL OR node_id IN (${sql.join(own)})` : sql` WHERE node_id IS NULL`) : sql``;
    const query = sql.join(
      rows.map((r) => sql`SELECT ${r.name}::text AS name, count(*)::int AS n FROM ${sql.table(r.name)}${scoped(r.name)}`),
      sql` UNION ALL `,
    );
    const counted = await sql<{ name: string; n: number }>`${query}`.execute(db);
    return Object.fromEntries(counted.rows.map((r) => [r.name, Number(r.n)]));
  };
}

/** Tables the sweeper writes to in the background when another file's task ends (see rowCounter). */
const BACKGROUND_RAISED = new Set(['notifications', 'notification_events']);

/** The tables whose counts differ, as `table: before → after`. */
export function countChanges(before: Record<string, number>, after: Record<string, number>): string[] {
  return Object.keys({ ...before, ...after })
    .filter((t) => before[t] !== after[t])
    .map((t) => `${t}: ${before[t]} → ${after[t]}`);
}

export const FINAL_TASK_STATUSES = ['success', 'failed', 'interrupted', 'cancelled'];
