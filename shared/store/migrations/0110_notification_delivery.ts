import { sql, type Kysely } from 'kysely';

/**
 * Notification delivery:
 * - `notification_channels`: one row per channel with its global settings; `secrets` (SMTP password, tokens,
 *   webhook URLs that carry a token, the webhook signing secret) is never answered by the API nor logged.
 * - rules gain the generic webhook toggle, optional task-kind / node filters (task events), and the per-channel
 *   delivery failures shown in the rules list (`{channel: {error, at}}`, cleared by the channel's next success).
 * - `notification_events`: what rules are matched against (a raised notification, a task that ended), written
 *   only when a rule matched; separate from the UI's notifications so `task.succeeded` floods nothing.
 * - `notification_deliveries`: the outbox, one row per (event, rule, channel), written in the transaction that
 *   raised the event, sent by the delivery worker with retries and exponential backoff.
 * No template rows here: a migrated store stays empty (the demo seed loads into an empty store only); the
 * built-in event templates are added when a rule first names one (shared/domain/notifications/event-templates.ts).
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE notification_channels (
      channel text PRIMARY KEY CHECK (channel IN ('email','ntfy','discord','pushover','webhook')),
      settings text NOT NULL DEFAULT '{}',
      secrets text NOT NULL DEFAULT '{}',
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    ALTER TABLE notification_rules ADD COLUMN webhook_enabled boolean NOT NULL DEFAULT false;
    ALTER TABLE notification_rules ADD COLUMN match_task_kind text;
    ALTER TABLE notification_rules ADD COLUMN match_node_id text;
    ALTER TABLE notification_rules ADD COLUMN delivery_failures text NOT NULL DEFAULT '{}';
    CREATE TABLE notification_events (
      id serial PRIMARY KEY,
      type text NOT NULL,
      title text NOT NULL,
      body text NOT NULL DEFAULT '',
      severity text NOT NULL,
      node_id text,
      target_key text,
      subject text NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE notification_deliveries (
      id serial PRIMARY KEY,
      event_id integer NOT NULL REFERENCES notification_events(id) ON DELETE CASCADE,
      rule_id integer NOT NULL REFERENCES notification_rules(id) ON DELETE CASCADE,
      channel text NOT NULL CHECK (channel IN ('email','ntfy','discord','pushover','webhook')),
      attempts integer NOT NULL DEFAULT 0,
      next_attempt_at timestamptz NOT NULL DEFAULT now(),
      last_error text NOT NULL DEFAULT '',
      delivered_at timestamptz,
      gave_up_at timestamptz,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (event_id, rule_id, channel)
    );
    CREATE INDEX notification_deliveries_due ON notification_deliveries (next_attempt_at) WHERE delivered_at IS NULL AND gave_up_at IS NULL;
  `.execute(db);
}
