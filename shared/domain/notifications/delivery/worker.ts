import { sql, type Kysely } from 'kysely';
import type { DeliveryChannel } from '#domain/notifications/channel-fields';
import { inTransaction } from '#store/tx';
import { setting } from '#shared/config/read';
import { log } from '#shared/log/logger';
import type { Database } from '#store/tables';
import { failureReason } from '#domain/outbound/failure';
import { loadChannels } from '../channels.ts';
import { parseJsonObject } from '../json-object.ts';
import type { EventMessage, Sender } from './message.ts';
import { sendDiscord } from './send-discord.ts';
import { sendEmail } from './send-email.ts';
import { sendNtfy } from './send-ntfy.ts';
import { sendPushover } from './send-pushover.ts';
import { sendWebhook } from './send-webhook.ts';

const SENDERS: Record<DeliveryChannel, Sender> = { email: sendEmail, ntfy: sendNtfy, discord: sendDiscord, pushover: sendPushover, webhook: sendWebhook };

interface DeliveryOptions {
  /** rows claimed per pass */
  limit: number;
  /** attempts before a delivery is given up and its channel marked failing on the rule */
  maxAttempts: number;
  /** retry n waits min(backoffS × 2^(n−1), backoffMaxS) */
  backoffS: number;
  backoffMaxS: number;
  /** per send (HTTP request or SMTP conversation step) */
  timeoutMs: number;
}

interface DeliveryResult {
  delivered: number[];
  retrying: number[];
  gaveUp: number[];
}

export function deliveryDefaults(env: NodeJS.ProcessEnv = process.env): DeliveryOptions {
  return {
    limit: 50,
    maxAttempts: setting('HM_NOTIFY_MAX_ATTEMPTS', env),
    backoffS: setting('HM_NOTIFY_BACKOFF_S', env),
    backoffMaxS: setting('HM_NOTIFY_BACKOFF_MAX_S', env),
    timeoutMs: setting('HM_NOTIFY_TIMEOUT_MS', env),
  };
}

/** The wait before the next try after `attempts` failed ones. */
export const backoffSeconds = (attempts: number, o: Pick<DeliveryOptions, 'backoffS' | 'backoffMaxS'>) =>
  Math.min(o.backoffS * 2 ** Math.max(0, attempts - 1), o.backoffMaxS);

/**
 * One pass of the delivery worker: claims due outbox rows (FOR UPDATE SKIP LOCKED, so concurrent workers on
 * PostgreSQL take disjoint rows; PGlite runs one transaction at a time anyway) by counting the attempt and
 * leasing the row past the send's timeout, so a worker that dies mid-send leaves it due again. Sends outside
 * any transaction, then records each outcome: delivered (and the channel's failure cleared on the rule), a
 * retry after exponential backoff, or — after `maxAttempts` — given up and the channel marked failing on the
 * rule. Giving up raises no notification: a failing channel must not feed the outbox it failed on.
 */
async function deliverDue(db: Kysely<Database>, options: Partial<DeliveryOptions> = {}): Promise<DeliveryResult> {
  const o = { ...deliveryDefaults(), ...options };
  const leaseS = Math.ceil((o.timeoutMs * 3) / 1000) + 30;
  const out: DeliveryResult = { delivered: [], retrying: [], gaveUp: [] };
  // a cheap look first: the loop polls often, and most passes find nothing
  const any = await sql<{ id: number }>`
    SELECT id FROM notification_deliveries WHERE delivered_at IS NULL AND gave_up_at IS NULL AND next_attempt_at <= now() LIMIT 1`.execute(db);
  if (any.rows.length === 0) return out;
  const claimed = await inTransaction(db, async (trx) => {
    const due = await sql<{ id: number }>`
      SELECT id FROM notification_deliveries
      WHERE delivered_at IS NULL AND gave_up_at IS NULL AND next_attempt_at <= now()
      ORDER BY next_attempt_at, id LIMIT ${o.limit} FOR UPDATE SKIP LOCKED`.execute(trx);
    if (due.rows.length === 0) return [];
    return trx
      .updateTable('notification_deliveries')
      .set({ attempts: sql<number>`attempts + 1`, next_attempt_at: sql<Date>`now() + ${leaseS} * interval '1 second'` })
      .where(
        'id',
        'in',
        due.rows.map((r) => r.id),
      )
      .returning(['id', 'event_id', 'rule_id', 'channel', 'attempts'])
      .execute();
  });
  if (claimed.length === 0) return out;

  const [events, rules, channels] = await Promise.all([
    db
      .selectFrom('notification_events')
      .selectAll()
      .where('id', 'in', [...new Set(claimed.map((c) => c.event_id))])
      .execute(),
    db
      .selectFrom('notification_rules')
      .select(['id', 'config'])
      .where('id', 'in', [...new Set(claimed.map((c) => c.rule_id))])
      .execute(),
    loadChannels(db),
  ]);
  const eventById = new Map(events.map((e) => [e.id, e]));
  const ruleById = new Map(rules.map((r) => [r.id, r]));

  await Promise.all(
    claimed.map(async (d) => {
      const e = eventById.get(d.event_id)!;
      const channel = d.channel as DeliveryChannel;
      const event: EventMessage = {
        id: e.id,
        type: e.type,
        title: e.title,
        body: e.body,
        severity: e.severity,
        nodeId: e.node_id,
        targetKey: e.target_key,
        subject: parseJsonObject(e.subject),
        createdAt: e.created_at.toISOString(),
      };
      let error: string | null = null;
      try {
        await SENDERS[channel]({
          deliveryId: d.id,
          ruleId: d.rule_id,
          channel,
          event,
          config: channels[channel],
          overrides: parseJsonObject(ruleById.get(d.rule_id)?.config),
          timeoutMs: o.timeoutMs,
        });
      } catch (err) {
        // a fixed reason (status, error code), never a message: the peer's text and the request's secrets stay out
        error = failureReason(err);
      }
      await recordOutcome(db, d, channel, error, o);
      if (error === null) out.delivered.push(d.id);
      else if (d.attempts >= o.maxAttempts) out.gaveUp.push(d.id);
      else out.retrying.push(d.id);
      if (error !== null) {
        log.warn('notification delivery failed', { deliveryId: d.id, ruleId: d.rule_id, channel, attempt: d.attempts, cause: error });
      }
    }),
  );
  return out;
}

async function recordOutcome(
  db: Kysely<Database>,
  d: { id: number; rule_id: number; attempts: number },
  channel: DeliveryChannel,
  error: string | null,
  o: DeliveryOptions,
): Promise<void> {
  await inTransaction(db, async (trx) => {
    if (error === null) {
      await trx.updateTable('notification_deliveries').set({ delivered_at: sql<Date>`now()`, last_error: '' }).where('id', '=', d.id).execute();
      await trx
        .updateTable('notification_rules')
        .set({ delivery_failures: sql<string>`(delivery_failures::jsonb - ${channel}::text)::text` })
        .where('id', '=', d.rule_id)
        .where(sql<boolean>`jsonb_exists(delivery_failures::jsonb, ${channel}::text)`)
        .execute();
      return;
    }
    if (d.attempts >= o.maxAttempts) {
      await trx.updateTable('notification_deliveries').set({ gave_up_at: sql<Date>`now()`, last_error: error }).where('id', '=', d.id).execute();
      await trx
        .updateTable('notification_rules')
        .set({
          delivery_failures: sql<string>`jsonb_set(delivery_failures::jsonb, ARRAY[${channel}::text], jsonb_build_object('error', ${error}::text, 'at', to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')))::text`,
        })
        .where('id', '=', d.rule_id)
        .execute();
      return;
    }
    const wait = backoffSeconds(d.attempts, o);
    await trx
      .updateTable('notification_deliveries')
      .set({ last_error: error, next_attempt_at: sql<Date>`now() + ${wait} * interval '1 second'` })
      .where('id', '=', d.id)
      .execute();
  });
}

/**
 * One scheduled pass: delivery passes until one finds nothing due or `untilMs` (epoch ms) has come, so a burst is
 * sent at once rather than a batch per schedule tick.
 */
export async function deliveryPass(db: Kysely<Database>, untilMs: number): Promise<DeliveryResult> {
  const total: DeliveryResult = { delivered: [], retrying: [], gaveUp: [] };
  while (Date.now() < untilMs) {
    const r = await deliverDue(db);
    total.delivered.push(...r.delivered);
    total.retrying.push(...r.retrying);
    total.gaveUp.push(...r.gaveUp);
    if (r.delivered.length + r.retrying.length + r.gaveUp.length === 0) break;
  }
  return total;
}

/**
 * Deletes events (with their outbox rows) whose every delivery ended (delivered or given up) more than
 * `days` ago (HM_NOTIFY_RETENTION_DAYS, default 30). Returns how many events went.
 */
export async function pruneDeliveries(db: Kysely<Database>, days = setting('HM_NOTIFY_RETENTION_DAYS')): Promise<number> {
  const res = await sql`
    DELETE FROM notification_events e
    WHERE e.created_at < now() - ${days} * interval '1 day'
      AND NOT EXISTS (
        SELECT 1 FROM notification_deliveries d
        WHERE d.event_id = e.id AND coalesce(d.delivered_at, d.gave_up_at, 'infinity'::timestamptz) >= now() - ${days} * interval '1 day'
      )`.execute(db);
  return Number(res.numAffectedRows ?? 0);
}
