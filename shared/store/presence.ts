import { sql, type RawBuilder } from 'kysely';

/**
 * A node is online when its agent was heard from (registration, heartbeat, any report) within
 * three of its heartbeat intervals. Computed with the database's clock, the one clock every writer shares.
 */
export const OFFLINE_AFTER_HEARTBEATS = 3;

/** SQL: whether the node row (aliased `n` or the bare `nodes` table) is online now, or at `at` (a scheduler's clock). */
export function onlineSql(table = 'nodes', at?: Date): RawBuilder<boolean> {
  const t = sql.ref(table);
  const clock = at === undefined ? sql`now()` : sql`${at}::timestamptz`;
  return sql<boolean>`coalesce(${t}.last_seen_at > ${clock} - (${OFFLINE_AFTER_HEARTBEATS} * ${t}.heartbeat_interval_s) * interval '1 second', false)`;
}
