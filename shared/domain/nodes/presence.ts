import { sql, type RawBuilder } from 'kysely';

/**
 * DESIGN §10: a node is online when its agent was heard from (registration, heartbeat, any report) within
 * three of its heartbeat intervals. Computed with the database's clock, the one clock every writer shares.
 */
export const OFFLINE_AFTER_HEARTBEATS = 3;

/** SQL: whether the node row (aliased `n` or the bare `nodes` table) is online now. */
export function onlineSql(table = 'nodes'): RawBuilder<boolean> {
  const t = sql.ref(table);
  return sql<boolean>`coalesce(${t}.last_seen_at > now() - (${OFFLINE_AFTER_HEARTBEATS} * ${t}.heartbeat_interval_s) * interval '1 second', false)`;
}

/** The same rule in JS, for callers that already hold the row and a trusted clock. */
export function isOnline(n: { last_seen_at: Date | null; heartbeat_interval_s: number }, now = new Date()): boolean {
  return n.last_seen_at !== null && now.getTime() - new Date(n.last_seen_at).getTime() < OFFLINE_AFTER_HEARTBEATS * n.heartbeat_interval_s * 1000;
}
