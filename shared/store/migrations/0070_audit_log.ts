import { sql, type Kysely } from 'kysely';

/**
 * The audit log: one row per mutation (recorded in the mutation's own transaction) and per refused request
 * (401, 403, 429). It names who (token id, name and role, source address), what (method, route template,
 * target resource, task) and the outcome status — never a token, a password, a key or a request body.
 * `api_tokens.last_used_at` is when a token was last accepted (kept to the minute).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE audit_log (
      id bigserial PRIMARY KEY,
      at timestamptz NOT NULL DEFAULT now(),
      token_id integer,
      token_name text NOT NULL DEFAULT '',
      role text NOT NULL DEFAULT '',
      source_ip text NOT NULL DEFAULT '',
      method text NOT NULL,
      route text NOT NULL,
      resource text NOT NULL DEFAULT '',
      status integer,
      task_id integer,
      request_id text NOT NULL DEFAULT ''
    );
    CREATE INDEX audit_log_at ON audit_log (at);
    CREATE INDEX audit_log_token ON audit_log (token_id, id);
    CREATE INDEX audit_log_route ON audit_log (route, id);
    ALTER TABLE api_tokens ADD COLUMN last_used_at timestamptz;
  `.execute(db);
}
