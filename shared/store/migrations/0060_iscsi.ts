import { sql, type Kysely } from 'kysely';

/**
 * iSCSI (E13): a node's portal groups, its targets and their LUNs, from which the agent regenerates the whole
 * `/etc/ctl.conf`. A LUN number is unique per target and a zvol backs at most one LUN of its node.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE iscsi_portal_groups (
      id serial PRIMARY KEY,
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      name text NOT NULL,
      discovery_auth_group text NOT NULL DEFAULT 'no-authentication',
      listen jsonb NOT NULL DEFAULT '[]',
      UNIQUE (node_id, name)
    );
    CREATE TABLE iscsi_targets (
      id serial PRIMARY KEY,
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      name text NOT NULL,
      alias text NOT NULL DEFAULT '',
      auth_group text NOT NULL DEFAULT 'no-authentication',
      portal_group_id integer NOT NULL REFERENCES iscsi_portal_groups(id),
      UNIQUE (node_id, name)
    );
    CREATE TABLE iscsi_luns (
      id serial PRIMARY KEY,
      target_id integer NOT NULL REFERENCES iscsi_targets(id) ON DELETE CASCADE,
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      lun_number integer NOT NULL CHECK (lun_number >= 0),
      zvol text NOT NULL,
      task_id integer,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (target_id, lun_number),
      UNIQUE (node_id, zvol)
    );
  `.execute(db);
}
