import type { Kysely } from 'kysely';
import { inTransaction } from '#store/tx';
import type { Database, Db } from '#store/tables';
import { requireAllFound } from '#store/paging';
import { synchroniseRules } from './sync.ts';
import { parseJsonObject } from './json-object.ts';
import { isFixedReason } from '#domain/outbound/failure';

/** `auto`: created by synchronisation; `custom`: created by an operator. */
export const NOTIFICATION_RULE_KINDS = ['auto', 'custom'] as const;

/** A notification rule as the API shows it. */
export interface NotificationRule {
  id: number;
  templateKey: string;
  templateLabel: string;
  targetKey: string;
  targetLabel: string;
  kind: (typeof NOTIFICATION_RULE_KINDS)[number];
  active: boolean;
  uiEnabled: boolean;
  emailEnabled: boolean;
  discordEnabled: boolean;
  ntfyEnabled: boolean;
  pushoverEnabled: boolean;
  webhookEnabled: boolean;
  /** task events: only tasks of this kind / on this node (null: any) */
  taskKind: string | null;
  nodeId: string | null;
  config: string;
  /** whether a channel gave up delivering; which, why and when in `deliveryFailures` (cleared by its next success) */
  failing: boolean;
  deliveryFailures: Record<string, { error: string; at: string }>;
}

/** A notification template, with the targets its rules may address (those of its target type). */
interface NotificationTemplate {
  key: string;
  label: string;
  description: string;
  targetType: string;
  defaultConfig: string;
  targets: Array<{ key: string; label: string }>;
}

interface RulesAndTemplates {
  rules: NotificationRule[];
  templates: NotificationTemplate[];
}

/** What a write-only value reads as. */
export const WRITE_ONLY_SET = 'set';

/** A rule's config as the API shows it: a webhook URL (which may carry a token) as `"set"`. */
function shownConfig(text: string): string {
  const config = parseJsonObject(text);
  if (config.webhookUrl === undefined) return text;
  return JSON.stringify({ ...config, webhookUrl: WRITE_ONLY_SET });
}

/**
 * A rule's delivery failures as the API shows them: a reason recorded before reasons were fixed (it may quote a
 * peer's answer or a URL's token) reads as `unrecorded`.
 */
function shownFailures(failures: Record<string, { error?: unknown; at?: unknown }>): NotificationRule['deliveryFailures'] {
  return Object.fromEntries(
    Object.entries(failures).map(([channel, f]) => [
      channel,
      { error: typeof f?.error === 'string' && isFixedReason(f.error) ? f.error : 'unrecorded', at: String(f?.at ?? '') },
    ]),
  );
}

/** Live rules (tombstones excluded), by template then target then id. */
export async function listRules(db: Db): Promise<NotificationRule[]> {
  const rows = await db
    .selectFrom('notification_rules as r')
    .innerJoin('notification_templates as t', 't.key', 'r.template_key')
    .leftJoin('notification_targets as g', (j) => j.onRef('g.target_type', '=', 't.target_type').onRef('g.key', '=', 'r.target_key'))
    .select([
      'r.id',
      'r.template_key',
      'r.target_key',
      'r.kind',
      'r.active',
      'r.ui_enabled',
      'r.email_enabled',
      'r.discord_enabled',
      'r.ntfy_enabled',
      'r.pushover_enabled',
      'r.config',
      't.label as template_label',
      'g.label as target_label',
      'r.webhook_enabled',
      'r.match_task_kind',
      'r.match_node_id',
      'r.delivery_failures',
    ])
    .where('r.deleted_at', 'is', null)
    .orderBy('r.template_key')
    .orderBy('r.target_key')
    .orderBy('r.id')
    .execute();
  return rows.map((r) => {
    const deliveryFailures = shownFailures(parseJsonObject(r.delivery_failures));
    return {
      id: r.id,
      templateKey: r.template_key,
      templateLabel: r.template_label,
      targetKey: r.target_key,
      // a rule may outlive its target; show the key rather than nothing
      targetLabel: r.target_label ?? r.target_key,
      kind: r.kind as NotificationRule['kind'],
      active: r.active,
      uiEnabled: r.ui_enabled,
      emailEnabled: r.email_enabled,
      discordEnabled: r.discord_enabled,
      ntfyEnabled: r.ntfy_enabled,
      pushoverEnabled: r.pushover_enabled,
      webhookEnabled: r.webhook_enabled,
      taskKind: r.match_task_kind,
      nodeId: r.match_node_id,
      config: shownConfig(r.config),
      failing: Object.keys(deliveryFailures).length > 0,
      deliveryFailures,
    };
  });
}

async function listTemplates(db: Db): Promise<NotificationTemplate[]> {
  const [templates, targets] = await Promise.all([
    db.selectFrom('notification_templates').selectAll().orderBy('key').execute(),
    db.selectFrom('notification_targets').selectAll().orderBy('target_type').orderBy('label').orderBy('key').execute(),
  ]);
  return templates.map((t) => ({
    key: t.key,
    label: t.label,
    description: t.description,
    targetType: t.target_type,
    defaultConfig: t.default_config,
    targets: targets.filter((g) => g.target_type === t.target_type).map((g) => ({ key: g.key, label: g.label })),
  }));
}

export async function rulesAndTemplates(db: Db): Promise<RulesAndTemplates> {
  const [rules, templates] = await Promise.all([listRules(db), listTemplates(db)]);
  return { rules, templates };
}

/**
 * E23: tombstones exactly `ids` (live rules only: an already deleted id counts as missing), all or nothing,
 * then synchronises, all in one serializable transaction. Tombstones keep synchronisation from recreating
 * what an operator deleted. Answers the resulting rules and templates.
 */
export async function bulkDeleteRules(db: Kysely<Database>, ids: number[]): Promise<RulesAndTemplates> {
  return inTransaction(db, async (trx) => {
    const found = await trx.selectFrom('notification_rules').select('id').where('id', 'in', ids).where('deleted_at', 'is', null).execute();
    requireAllFound(
      ids,
      found.map((r) => r.id),
      'notification_rule_not_found',
      'notification rule',
    );
    const now = new Date();
    await trx.updateTable('notification_rules').set({ deleted_at: now, updated_at: now }).where('id', 'in', ids).execute();
    await synchroniseRules(trx);
    // Sequential on purpose: one transaction is one connection.
    return { rules: await listRules(trx), templates: await listTemplates(trx) };
  });
}
