import { sql, type Insertable, type Kysely } from 'kysely';
import type { ArcTelemetryTable, Database, PoolTelemetryTable } from '#store/tables';

/** What the node's telemetry_nodes row held when the rows were computed (the statement applies only if it still does). */
export interface NodeStateSeen {
  lastSampleAt: Date | null;
  poolRows: number;
  arcRows: number;
}

/** The node's telemetry_nodes row after these rows. */
export interface NodeStateNext {
  lastSampleAt: Date;
  /** the oldest sample time stored now: roll-ups resume from it (or from an older one still pending) */
  firstSampleAt: Date;
  arcCounters: Record<string, number> | null;
  arcCountersAt: Date | null;
  poolRows: number;
  arcRows: number;
  poolRowsByGuid: Record<string, number>;
}

export type PoolRow = Omit<Insertable<PoolTelemetryTable>, 'id'>;
export type ArcRow = Omit<Insertable<ArcTelemetryTable>, 'id'>;

/**
 * Stores one ingest's rows in ONE statement, run outside any explicit transaction, so that PostgreSQL commits
 * it as soon as it finishes: the streams' counter rows (./cursors.ts) are locked from the moment the statement
 * takes them until its own commit, with no round trip to the client in between. That lock is what makes ids
 * visible in id order (E14's cursors rely on it: every row up to a visible head has committed), and it is the
 * one lock every ingest of every node takes — so it is held only for the tail of one statement (a few inserts)
 * and the commit, never while the client computes, waits for CPU or sends its next statement.
 *
 * Everything the rows depend on was read before, without locks; the statement applies only if the node's
 * telemetry_nodes row still holds what was read (`seen`): each ingest that stores a sample moves
 * `last_sample_at` forward, so a concurrent ingest of the same node makes this one match no row (READ
 * COMMITTED re-checks the condition on the row version the other committed) and store nothing; the caller reads
 * again and recomputes. Roll-ups (retention.ts) may move `rollup_from` meanwhile: it is merged with LEAST on
 * the current row, not overwritten.
 *
 * Lock order, the same in every ingest (no deadlock between them): KEY SHARE on the node's `nodes` row (what
 * the inserts' foreign-key checks take anyway; taken first so that a transaction holding the node FOR UPDATE —
 * a cluster join, a node's deletion — is waited for before, not while, this statement holds the counters), the
 * node's telemetry_nodes row, the 'arc' counter, the 'pool' counter: each step of the WITH chain depends on
 * the previous one, so PostgreSQL runs them in that order. KEY SHARE does not conflict with a heartbeat's
 * update of the node (no key change), and the caller touches the node in its own statement before this one,
 * so heartbeats and ingests never wait for each other across the counters.
 *
 * Returns false when the node's row had moved on (nothing stored).
 */
export async function commitSamples(
  db: Kysely<Database>,
  nodeId: string,
  seen: NodeStateSeen,
  next: NodeStateNext,
  pools: PoolRow[],
  arcs: ArcRow[],
): Promise<boolean> {
  // inside a caller's transaction the counters would stay locked until that transaction ends
  if (db.isTransaction) throw new Error('commitSamples runs as its own statement, outside a transaction');
  const nPool = pools.length;
  const nArc = arcs.length;
  const { rows } = await sql<{ stored: string | number }>`
    WITH node AS (
      -- what the inserts' foreign-key checks take anyway, taken first (see the lock order above)
      SELECT id FROM nodes WHERE id = ${nodeId} FOR KEY SHARE
    ),
    state AS (
      UPDATE telemetry_nodes SET
        last_sample_at = ${next.lastSampleAt},
        rollup_from = LEAST(rollup_from, ${next.firstSampleAt}::timestamptz),
        arc_counters = ${next.arcCounters ? JSON.stringify(next.arcCounters) : null}::jsonb,
        arc_counters_at = ${next.arcCountersAt}::timestamptz,
        pool_rows = ${next.poolRows}::bigint,
        arc_rows = ${next.arcRows}::bigint,
        pool_rows_by_guid = ${JSON.stringify(next.poolRowsByGuid)}::jsonb
      WHERE node_id = ${nodeId} AND EXISTS (SELECT FROM node)
        AND last_sample_at IS NOT DISTINCT FROM ${seen.lastSampleAt}::timestamptz
        AND pool_rows = ${seen.poolRows}::bigint
        AND arc_rows = ${seen.arcRows}::bigint
      RETURNING node_id
    ),
    arc_ids AS (
      UPDATE telemetry_cursors SET last_id = last_id + ${nArc}::bigint
      WHERE stream = 'arc' AND ${nArc}::bigint > 0 AND EXISTS (SELECT FROM state)
      RETURNING last_id
    ),
    pool_ids AS (
      -- (SELECT count(*) FROM arc_ids) runs the arc step first: the lock order above
      UPDATE telemetry_cursors SET last_id = last_id + ${nPool}::bigint
      WHERE stream = 'pool' AND ${nPool}::bigint > 0 AND EXISTS (SELECT FROM state) AND (SELECT count(*) FROM arc_ids) >= 0
      RETURNING last_id
    ),
    -- jsonb_populate_record fills the columns a row object lacks with NULL, not their defaults: rows name every column but id
    arc_stored AS (
      INSERT INTO arc_telemetry
      SELECT r.* FROM arc_ids c
      CROSS JOIN LATERAL jsonb_array_elements(${JSON.stringify(arcs)}::jsonb) WITH ORDINALITY AS e(v, n)
      CROSS JOIN LATERAL jsonb_populate_record(null::arc_telemetry, e.v || jsonb_build_object('id', c.last_id - ${nArc}::bigint + e.n)) AS r
    ),
    pool_stored AS (
      INSERT INTO pool_telemetry
      SELECT r.* FROM pool_ids c
      CROSS JOIN LATERAL jsonb_array_elements(${JSON.stringify(pools)}::jsonb) WITH ORDINALITY AS e(v, n)
      CROSS JOIN LATERAL jsonb_populate_record(null::pool_telemetry, e.v || jsonb_build_object('id', c.last_id - ${nPool}::bigint + e.n)) AS r
    )
    SELECT count(*) AS stored FROM state
  `.execute(db);
  return Number(rows[0]?.stored ?? 0) > 0;
}
