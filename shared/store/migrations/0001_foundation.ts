import { sql, type Kysely } from 'kysely';

export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE api_tokens (
      id serial PRIMARY KEY,
      name text NOT NULL,
      role text NOT NULL CHECK (role IN ('viewer','operator','admin','agent')),
      token_hash text NOT NULL UNIQUE,
      node_id text,
      expires_at timestamptz,
      revoked_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE nodes (
      id text PRIMARY KEY,
      name text NOT NULL,
      ip text NOT NULL DEFAULT '',
      status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending','member')),
      last_seen_at timestamptz,
      inventory jsonb NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE cluster_notes (
      id serial PRIMARY KEY,
      title text NOT NULL,
      content text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE notifications (
      id serial PRIMARY KEY,
      kind text NOT NULL,
      title text NOT NULL,
      body text NOT NULL DEFAULT '',
      severity text NOT NULL DEFAULT 'info' CHECK (severity IN ('info','warning','error')),
      scope text NOT NULL DEFAULT 'global' CHECK (scope IN ('global','node')),
      node_id text REFERENCES nodes(id) ON DELETE CASCADE,
      created_at timestamptz NOT NULL DEFAULT now(),
      dismissed_at timestamptz
    );
    CREATE INDEX notifications_active ON notifications (scope) WHERE dismissed_at IS NULL;
    CREATE TABLE notification_templates (
      key text PRIMARY KEY,
      label text NOT NULL,
      description text NOT NULL DEFAULT '',
      target_type text NOT NULL,
      default_config text NOT NULL DEFAULT '{}'
    );
    CREATE TABLE notification_targets (
      target_type text NOT NULL,
      key text NOT NULL,
      label text NOT NULL,
      PRIMARY KEY (target_type, key)
    );
    CREATE TABLE notification_rules (
      id serial PRIMARY KEY,
      template_key text NOT NULL REFERENCES notification_templates(key) ON DELETE CASCADE,
      target_key text NOT NULL,
      kind text NOT NULL DEFAULT 'custom' CHECK (kind IN ('auto','custom')),
      active boolean NOT NULL DEFAULT true,
      discord_enabled boolean NOT NULL DEFAULT false,
      email_enabled boolean NOT NULL DEFAULT false,
      ntfy_enabled boolean NOT NULL DEFAULT false,
      pushover_enabled boolean NOT NULL DEFAULT false,
      ui_enabled boolean NOT NULL DEFAULT true,
      config text NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      deleted_at timestamptz
    );
    -- one auto-managed rule (live or tombstoned) per template and target
    CREATE UNIQUE INDEX notification_rules_auto ON notification_rules (template_key, target_key) WHERE kind = 'auto';
    CREATE TABLE backup_jobs (
      id serial PRIMARY KEY,
      name text NOT NULL,
      node_id text NOT NULL REFERENCES nodes(id),
      mode text NOT NULL DEFAULT 'incremental',
      source_dataset text NOT NULL,
      target_endpoint text NOT NULL,
      schedule text NOT NULL DEFAULT '',
      enabled boolean NOT NULL DEFAULT true,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE backup_events (
      id serial PRIMARY KEY,
      job_id integer NOT NULL REFERENCES backup_jobs(id) ON DELETE CASCADE,
      node_id text NOT NULL REFERENCES nodes(id),
      mode text NOT NULL DEFAULT '',
      source_dataset text NOT NULL DEFAULT '',
      target_endpoint text NOT NULL DEFAULT '',
      status text NOT NULL CHECK (status IN ('queued','running','success','failed','interrupted')),
      output text NOT NULL DEFAULT '',
      error text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now(),
      started_at timestamptz,
      completed_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE INDEX backup_events_node_started ON backup_events (node_id, started_at DESC);
    CREATE INDEX backup_events_job ON backup_events (job_id);
    CREATE INDEX backup_events_started ON backup_events (started_at DESC);
  `.execute(db);
}
