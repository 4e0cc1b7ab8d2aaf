import { sql, type Kysely } from 'kysely';

/**
 * The host users and groups each node's agent reports (`pw usershow -a`, `pw groupshow -a`), projected so
 * that E1 and E2 validate against them inside the request's transaction. A group gets a positive id of
 * the store (gids repeat across nodes and `wheel` is gid 0); a deleted group keeps its row, marked
 * `deleted_at`, until the host no longer reports it, so that a second delete is 404 while the task runs.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE host_groups (
      id serial PRIMARY KEY,
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      name text NOT NULL,
      gid bigint NOT NULL,
      -- the supplementary members, in the host's order
      members jsonb NOT NULL DEFAULT '[]',
      deleted_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (node_id, name)
    );

    CREATE TABLE host_users (
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      name text NOT NULL,
      uid bigint NOT NULL,
      -- the user's primary group
      gid bigint NOT NULL,
      PRIMARY KEY (node_id, name)
    );
    CREATE INDEX host_users_primary_group ON host_users (node_id, gid);
  `.execute(db);
}
