import { sql, type Kysely } from 'kysely';

/**
 * ZFS dashboard telemetry (E14). Raw rows arrive every 10 s per pool and per node (ARC); their ids are the
 * cursors of E14's delta, so ids must become visible in id order: they are handed out from
 * `telemetry_cursors` (a row lock held until the inserting transaction commits), never from a sequence,
 * whose values can commit out of order and make a reader step past a row that commits later.
 *
 * Retention (shared/domain/telemetry/retention.ts): raw rows 24 h; 1-minute roll-ups 7 days; 5-minute
 * roll-ups 90 days.
 *
 * ARC rows hold counter DELTAS over their interval (computed at ingest against the node's previous lifetime
 * counters in `telemetry_nodes`), so ratios are always of one interval and roll-ups can simply sum them.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE telemetry_cursors (
      stream text PRIMARY KEY CHECK (stream IN ('pool','arc')),
      last_id bigint NOT NULL DEFAULT 0
    );
    INSERT INTO telemetry_cursors (stream) VALUES ('pool'), ('arc');

    CREATE TABLE pool_telemetry (
      id bigint PRIMARY KEY,
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      pool_guid text NOT NULL,
      pool_name text NOT NULL,
      time timestamptz NOT NULL,
      interval_seconds integer NOT NULL,
      sample_count integer NOT NULL DEFAULT 1,
      size bigint NOT NULL,
      allocated bigint NOT NULL,
      free bigint NOT NULL,
      fragmentation double precision NOT NULL,
      dedup_ratio double precision NOT NULL,
      health text NOT NULL,
      worst_health text NOT NULL,
      read_iops bigint NOT NULL,
      write_iops bigint NOT NULL,
      read_bytes_per_second bigint NOT NULL,
      write_bytes_per_second bigint NOT NULL,
      read_latency_nanos bigint NOT NULL,
      write_latency_nanos bigint NOT NULL,
      max_read_iops bigint NOT NULL,
      max_write_iops bigint NOT NULL,
      max_read_bytes_per_second bigint NOT NULL,
      max_write_bytes_per_second bigint NOT NULL,
      max_read_latency_nanos bigint NOT NULL,
      max_write_latency_nanos bigint NOT NULL,
      -- the row's number among its node's (and its pool's) pool rows: "how many rows after the cursor" in two
      -- index lookups instead of counting up to 10 001 (0 = not numbered: counted the slow way)
      node_seq bigint NOT NULL DEFAULT 0,
      pool_seq bigint NOT NULL DEFAULT 0
    );
    -- E14 reads "newer than the cursor" per node or per pool; retention and the reset window go by time
    CREATE INDEX pool_telemetry_node_id ON pool_telemetry (node_id, id);
    CREATE INDEX pool_telemetry_pool_id ON pool_telemetry (pool_guid, id);
    CREATE INDEX pool_telemetry_node_time ON pool_telemetry (node_id, time);

    CREATE TABLE arc_telemetry (
      id bigint PRIMARY KEY,
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      time timestamptz NOT NULL,
      interval_ms bigint NOT NULL,
      sample_count integer NOT NULL DEFAULT 1,
      size bigint NOT NULL,
      target_size bigint NOT NULL,
      min_size bigint NOT NULL,
      max_size bigint NOT NULL,
      data_size bigint NOT NULL,
      metadata_size bigint NOT NULL,
      header_size bigint NOT NULL,
      other_size bigint NOT NULL,
      compressed_size bigint NOT NULL,
      uncompressed_size bigint NOT NULL,
      l2_size bigint NOT NULL,
      l2_allocated bigint NOT NULL,
      l2_device_count integer NOT NULL,
      -- counter deltas over interval_ms
      hits bigint NOT NULL,
      misses bigint NOT NULL,
      demand_hits bigint NOT NULL,
      demand_misses bigint NOT NULL,
      prefetch_hits bigint NOT NULL,
      prefetch_misses bigint NOT NULL,
      l2_hits bigint NOT NULL,
      l2_misses bigint NOT NULL,
      evictions bigint NOT NULL,
      l2_read_bytes bigint NOT NULL,
      l2_write_bytes bigint NOT NULL,
      evict_not_enough bigint NOT NULL,
      memory_throttle bigint NOT NULL,
      node_seq bigint NOT NULL DEFAULT 0
    );
    CREATE INDEX arc_telemetry_node_id ON arc_telemetry (node_id, id);
    CREATE INDEX arc_telemetry_node_time ON arc_telemetry (node_id, time);

    -- per node: the last sample taken (a retried post of the same samples is skipped), the previous lifetime
    -- ARC counters (the base of the next row's deltas), the oldest sample time not yet rolled up, and when
    -- roll-ups and retention last ran
    CREATE TABLE telemetry_nodes (
      node_id text PRIMARY KEY REFERENCES nodes(id) ON DELETE CASCADE,
      last_sample_at timestamptz,
      arc_counters jsonb,
      arc_counters_at timestamptz,
      rollup_from timestamptz,
      maintained_at timestamptz,
      -- how many pool and ARC rows the node ever stored (overall and per pool): the next rows' *_seq
      pool_rows bigint NOT NULL DEFAULT 0,
      arc_rows bigint NOT NULL DEFAULT 0,
      pool_rows_by_guid jsonb NOT NULL DEFAULT '{}'
    );

    -- roll-ups: same measures as the raw rows, one row per bucket (resolution_seconds 60 or 300)
    CREATE TABLE pool_telemetry_rollups (LIKE pool_telemetry INCLUDING DEFAULTS);
    ALTER TABLE pool_telemetry_rollups
      ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY,
      ADD COLUMN resolution_seconds integer NOT NULL,
      ADD PRIMARY KEY (id),
      ADD FOREIGN KEY (node_id) REFERENCES nodes(id) ON DELETE CASCADE;
    CREATE UNIQUE INDEX pool_telemetry_rollups_bucket ON pool_telemetry_rollups (resolution_seconds, pool_guid, time);
    CREATE INDEX pool_telemetry_rollups_node_time ON pool_telemetry_rollups (node_id, resolution_seconds, time);

    CREATE TABLE arc_telemetry_rollups (LIKE arc_telemetry INCLUDING DEFAULTS);
    ALTER TABLE arc_telemetry_rollups
      ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY,
      ADD COLUMN resolution_seconds integer NOT NULL,
      ADD PRIMARY KEY (id),
      ADD FOREIGN KEY (node_id) REFERENCES nodes(id) ON DELETE CASCADE;
    CREATE UNIQUE INDEX arc_telemetry_rollups_bucket ON arc_telemetry_rollups (resolution_seconds, node_id, time);

  `.execute(db);
}
