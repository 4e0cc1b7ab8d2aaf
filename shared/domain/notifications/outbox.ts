import { sql } from 'kysely';
import type { Db } from '#store/tables';
import { DELIVERY_CHANNELS } from './channel-fields.ts';

/** What rules are matched against: a raised notification (type = its kind) or a task that ended (`task.*`). */
export interface DeliveryEvent {
  type: string;
  title: string;
  body: string;
  severity: 'info' | 'warning' | 'error';
  nodeId: string | null;
  /** the notification target it concerns (a backup job's key, a certificate's name …); node rules match `nodeId` */
  targetKey?: string | null;
  subject?: { type: string; id: number | string; kind?: string; status?: string };
}

/**
 * Writes the event and one outbox row per (matching rule, enabled channel), in the caller's transaction, so
 * delivery happens exactly when the event commits. A rule matches when it is live and active, its template is
 * the event's type, its target is `*`, the event's node (node-type templates) or the event's target, and its
 * task-kind / node filters (when set) equal the event's. Nothing is written when no rule matches. Returns the
 * number of deliveries queued.
 */
export async function queueDeliveries(trx: Db, e: DeliveryEvent): Promise<number> {
  const taskKind = e.subject?.type === 'task' ? (e.subject.kind ?? null) : null;
  const targetKey = e.targetKey ?? (e.subject ? String(e.subject.id) : null);
  const rules = await trx
    .selectFrom('notification_rules as r')
    .innerJoin('notification_templates as t', 't.key', 'r.template_key')
    .select(['r.id', 'r.email_enabled', 'r.ntfy_enabled', 'r.discord_enabled', 'r.pushover_enabled', 'r.webhook_enabled'])
    .where('r.template_key', '=', e.type)
    .where('r.deleted_at', 'is', null)
    .where('r.active', '=', true)
    .where((eb) =>
      eb.or([
        eb('r.target_key', '=', '*'),
        eb.and([eb('t.target_type', '=', 'node'), eb('r.target_key', '=', e.nodeId ?? '')]),
        eb('r.target_key', '=', targetKey ?? ''),
      ]),
    )
    .where((eb) => eb.or([eb('r.match_task_kind', 'is', null), eb('r.match_task_kind', '=', taskKind ?? '')]))
    .where((eb) => eb.or([eb('r.match_node_id', 'is', null), eb('r.match_node_id', '=', e.nodeId ?? '')]))
    .where(sql<boolean>`(r.email_enabled OR r.ntfy_enabled OR r.discord_enabled OR r.pushover_enabled OR r.webhook_enabled)`)
    .orderBy('r.id')
    .execute();
  if (rules.length === 0) return 0;
  const event = await trx
    .insertInto('notification_events')
    .values({
      type: e.type,
      title: e.title,
      body: e.body,
      severity: e.severity,
      node_id: e.nodeId,
      target_key: targetKey,
      subject: JSON.stringify(e.subject ?? {}),
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const rows = rules.flatMap((r) => DELIVERY_CHANNELS.filter((c) => r[`${c}_enabled`]).map((channel) => ({ event_id: event.id, rule_id: r.id, channel })));
  await trx.insertInto('notification_deliveries').values(rows).execute();
  return rows.length;
}
