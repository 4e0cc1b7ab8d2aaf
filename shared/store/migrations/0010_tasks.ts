import { sql, type Kysely } from 'kysely';

/**
 * Tasks: one row per piece of host work. The row is the truth; the queue message only wakes the
 * node's agent, so a lost or duplicated message can never lose or repeat work (the agent starts a task through
 * the store, idempotently by id).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE tasks (
      id serial PRIMARY KEY,
      kind text NOT NULL,
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      resource text NOT NULL,
      status text NOT NULL DEFAULT 'queued' CHECK (status IN ('queued','running','success','failed','interrupted')),
      phase text NOT NULL DEFAULT '',
      progress integer NOT NULL DEFAULT 0 CHECK (progress BETWEEN 0 AND 100),
      -- the tail of the command output (bounded by the writer, see shared/jobs/lifecycle.ts)
      output text NOT NULL DEFAULT '',
      error text NOT NULL DEFAULT '',
      result jsonb,
      payload jsonb NOT NULL DEFAULT '{}',
      -- who asked: the token's name for people, a system name (e.g. 'agent-start') for the control plane itself
      requested_by text NOT NULL,
      requester_token_id integer,
      idempotency_key text,
      -- the request an idempotency key was first used for, to refuse the same key on a different request
      request_ref text NOT NULL DEFAULT '',
      exclusive boolean NOT NULL DEFAULT false,
      attempts integer NOT NULL DEFAULT 0,
      dispatch_count integer NOT NULL DEFAULT 0,
      dispatched_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      finished_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    -- at most one active exclusive task per resource (migration, restore, device replacement): the database
    -- enforces it (409 resource_busy) even when two requests race
    CREATE UNIQUE INDEX tasks_one_active_exclusive ON tasks (resource) WHERE exclusive AND status IN ('queued','running');
    -- an Idempotency-Key names one task per requester
    CREATE UNIQUE INDEX tasks_idempotency ON tasks (requester_token_id, idempotency_key) WHERE idempotency_key IS NOT NULL;
    CREATE INDEX tasks_node_status ON tasks (node_id, status);
    CREATE INDEX tasks_resource ON tasks (resource, id DESC);
    CREATE INDEX tasks_status ON tasks (status, id DESC);
    CREATE INDEX tasks_active ON tasks (node_id, updated_at) WHERE status IN ('queued','running');
  `.execute(db);
}
