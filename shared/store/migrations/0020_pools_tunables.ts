import { sql, type Kysely } from 'kysely';

/**
 * The part of each node's reported inventory that E7 and E11 validate against, projected into tables so the
 * checks are indexed queries inside the request's transaction (shared/domain/pools/apply-inventory.ts keeps
 * them in step with every inventory report), plus the tunable values operators set (re-applied at agent start).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    -- a pool GUID is unique across hosts; a pool imported on another node moves with the next report
    CREATE TABLE pools (
      guid text PRIMARY KEY,
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      name text NOT NULL,
      health text NOT NULL,
      size bigint NOT NULL DEFAULT 0,
      allocated bigint NOT NULL DEFAULT 0,
      free bigint NOT NULL DEFAULT 0,
      vdevs jsonb NOT NULL DEFAULT '[]',
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX pools_node ON pools (node_id);

    -- every vdev of every pool, flattened (a name can repeat: an in-use hot spare is listed twice by zpool)
    CREATE TABLE pool_devices (
      id bigserial PRIMARY KEY,
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      pool_guid text NOT NULL REFERENCES pools(guid) ON DELETE CASCADE,
      name text NOT NULL,
      guid text,
      type text NOT NULL,
      state text NOT NULL,
      parent text NOT NULL DEFAULT '',
      leaf boolean NOT NULL
    );
    CREATE INDEX pool_devices_pool ON pool_devices (pool_guid, name);
    CREATE INDEX pool_devices_node_name ON pool_devices (node_id, name) WHERE leaf;

    -- disks the agent reported as not in any pool
    CREATE TABLE node_disks (
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      name text NOT NULL,
      PRIMARY KEY (node_id, name)
    );

    CREATE TABLE tunables (
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      name text NOT NULL,
      type text NOT NULL,
      value text NOT NULL,
      writable boolean NOT NULL,
      description text NOT NULL DEFAULT '',
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (node_id, name)
    );

    -- E11's persisted settings: the agent applies each and re-applies them all when it starts
    CREATE TABLE tunable_settings (
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      name text NOT NULL,
      value text NOT NULL,
      type text NOT NULL,
      previous_value text NOT NULL DEFAULT '',
      task_id integer,
      requested_by text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (node_id, name)
    );
  `.execute(db);
}
