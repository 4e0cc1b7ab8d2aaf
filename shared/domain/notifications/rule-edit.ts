import type { Kysely } from 'kysely';
import { invalid, notFound } from '#shared/errors/domain-errors';
import { inTransaction } from '#store/tx';
import type { Database, Db } from '#store/tables';
import { checkDeliveryUrl, checkNoControlCharacters } from './channels.ts';
import { ensureBuiltInTemplate } from './event-templates.ts';
import { parseJsonObject } from './json-object.ts';
import { listRules, WRITE_ONLY_SET, type NotificationRule } from './rules.ts';

/** What an operator sets on a rule; every field optional on update. */
interface RuleInput {
  templateKey?: string;
  /** a target of the template's type, or `*` (any) */
  targetKey?: string;
  taskKind?: string | null;
  nodeId?: string | null;
  active?: boolean;
  uiEnabled?: boolean;
  emailEnabled?: boolean;
  ntfyEnabled?: boolean;
  discordEnabled?: boolean;
  pushoverEnabled?: boolean;
  webhookEnabled?: boolean;
  /**
   * destination overrides: `to`, `ntfyTopic`, `ntfyPriority`, `webhookUrl`. The rules list shows the config with
   * `webhookUrl` as `"set"` (it may carry a token); `"set"` given back on update keeps the stored URL.
   */
  config?: Record<string, unknown>;
}

const columns = (r: RuleInput) => ({
  ...(r.taskKind !== undefined && { match_task_kind: r.taskKind }),
  ...(r.nodeId !== undefined && { match_node_id: r.nodeId }),
  ...(r.active !== undefined && { active: r.active }),
  ...(r.uiEnabled !== undefined && { ui_enabled: r.uiEnabled }),
  ...(r.emailEnabled !== undefined && { email_enabled: r.emailEnabled }),
  ...(r.ntfyEnabled !== undefined && { ntfy_enabled: r.ntfyEnabled }),
  ...(r.discordEnabled !== undefined && { discord_enabled: r.discordEnabled }),
  ...(r.pushoverEnabled !== undefined && { pushover_enabled: r.pushoverEnabled }),
  ...(r.webhookEnabled !== undefined && { webhook_enabled: r.webhookEnabled }),
  ...(r.config !== undefined && { config: JSON.stringify(r.config) }),
});

async function checkTarget(db: Db, templateKey: string, targetKey: string): Promise<void> {
  const t = await db.selectFrom('notification_templates').select('target_type').where('key', '=', templateKey).executeTakeFirst();
  if (!t) throw invalid('notification_template_unknown', `body.templateKey: no template "${templateKey}"`);
  if (targetKey === '*') return;
  const g = await db.selectFrom('notification_targets').select('key').where('target_type', '=', t.target_type).where('key', '=', targetKey).executeTakeFirst();
  if (!g) throw invalid('notification_target_unknown', `body.targetKey: no ${t.target_type} target "${targetKey}"; use one of the template's targets or "*"`);
}

/** A rule's node filter names a cluster node (pending or member): a typo would make a rule that never fires. */
async function checkNode(db: Db, nodeId: string | null | undefined): Promise<void> {
  if (nodeId === undefined || nodeId === null) return;
  const n = await db.selectFrom('nodes').select('id').where('id', '=', nodeId).executeTakeFirst();
  if (!n)
    throw invalid('notification_node_unknown', `body.nodeId: no cluster node "${nodeId}"; give a node id from GET /api/cluster/nodes, or null for any node`);
}

const checkConfig = (config: Record<string, unknown> | undefined, keepsUrl = false) => {
  if (config === undefined) return;
  checkNoControlCharacters('body.config', config);
  if (config.webhookUrl !== undefined && !(keepsUrl && config.webhookUrl === WRITE_ONLY_SET)) checkDeliveryUrl('body.config.webhookUrl', config.webhookUrl);
};

/** A config given on update with `webhookUrl: "set"`: the stored URL kept (400 when none is stored). */
async function keepStoredUrl(db: Db, id: number, config: Record<string, unknown> | undefined): Promise<Record<string, unknown> | undefined> {
  if (config?.webhookUrl !== WRITE_ONLY_SET) return config;
  const row = await db.selectFrom('notification_rules').select('config').where('id', '=', id).executeTakeFirst();
  const stored = parseJsonObject(row?.config).webhookUrl;
  if (typeof stored !== 'string') throw invalid('invalid_url', 'body.config.webhookUrl: "set" keeps the stored URL, and this rule has none; give the URL');
  return { ...config, webhookUrl: stored };
}

const ruleOf = async (db: Db, id: number): Promise<NotificationRule> => (await listRules(db)).find((r) => r.id === id)!;

/** Creates a `custom` rule in one transaction; answers it as the rules list shows it. */
export async function createRule(db: Kysely<Database>, input: RuleInput & { templateKey: string }): Promise<NotificationRule> {
  checkConfig(input.config);
  return inTransaction(db, async (trx) => {
    const targetKey = input.targetKey ?? '*';
    await ensureBuiltInTemplate(trx, input.templateKey);
    await checkTarget(trx, input.templateKey, targetKey);
    await checkNode(trx, input.nodeId);
    const row = await trx
      .insertInto('notification_rules')
      .values({
        template_key: input.templateKey,
        target_key: targetKey,
        kind: 'custom',
        active: true,
        ui_enabled: false,
        email_enabled: false,
        ntfy_enabled: false,
        discord_enabled: false,
        pushover_enabled: false,
        config: '{}',
        ...columns(input),
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    return ruleOf(trx, row.id);
  });
}

/** Updates a live rule's toggles, filters and overrides in one transaction; 404 for a missing or deleted rule. */
export async function updateRule(db: Kysely<Database>, id: number, input: Omit<RuleInput, 'templateKey'>): Promise<NotificationRule> {
  checkConfig(input.config, true);
  return inTransaction(db, async (trx) => {
    const rule = await trx.selectFrom('notification_rules').select(['template_key']).where('id', '=', id).where('deleted_at', 'is', null).executeTakeFirst();
    if (!rule) throw notFound('notification_rule_not_found', `no notification rule ${id}`);
    const config = await keepStoredUrl(trx, id, input.config);
    if (input.targetKey !== undefined) await checkTarget(trx, rule.template_key, input.targetKey);
    await checkNode(trx, input.nodeId);
    await trx
      .updateTable('notification_rules')
      .set({ ...columns({ ...input, config }), ...(input.targetKey !== undefined && { target_key: input.targetKey }), updated_at: new Date() })
      .where('id', '=', id)
      .execute();
    return ruleOf(trx, id);
  });
}
