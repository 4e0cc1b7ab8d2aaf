import { DELIVERY_CHANNELS } from '#domain/notifications/channel-fields';
import { NOTIFICATION_SCOPES, NOTIFICATION_SEVERITIES } from '#domain/notifications/notifications';
import { NOTIFICATION_RULE_KINDS, type NotificationRule } from '#domain/notifications/rules';
import { describes } from '#http/responses/same';

/** The `data` schemas of the notification endpoints, from what the domain answers (shared/domain/notifications). */

const time = { type: 'string', format: 'date-time' } as const;
const timeOrNull = { type: ['string', 'null'], format: 'date-time' } as const;
const count = { type: 'integer', minimum: 0 } as const;

/** The delivery channels (`listChannels`): plain settings as stored, each secret as `"set"` or null. */
export const channelsSchema = {
  type: 'array',
  items: {
    title: 'NotificationChannel',
    type: 'object',
    properties: {
      channel: { type: 'string', enum: DELIVERY_CHANNELS },
      settings: { type: 'object', additionalProperties: { type: ['string', 'number', 'boolean', 'null'] } },
      updatedAt: timeOrNull,
    },
    required: ['channel', 'settings', 'updatedAt'],
    additionalProperties: false,
  },
} as const;

/** An active notification (`toNotification`). */
export const notificationSchema = {
  title: 'Notification',
  type: 'object',
  properties: {
    id: { type: 'integer', minimum: 1 },
    kind: { type: 'string' },
    title: { type: 'string' },
    body: { type: 'string' },
    severity: { type: 'string', enum: NOTIFICATION_SEVERITIES },
    scope: { type: 'string', enum: NOTIFICATION_SCOPES },
    nodeId: { type: ['string', 'null'] },
    createdAt: time,
    dismissedAt: timeOrNull,
  },
  required: ['id', 'kind', 'title', 'body', 'severity', 'scope', 'nodeId', 'createdAt', 'dismissedAt'],
  additionalProperties: false,
} as const;

/** A notification rule as the API shows it (`listRules`; the spec's rule fields plus filters and delivery state). */
export const ruleSchema = describes<NotificationRule>()({
  title: 'NotificationRule',
  type: 'object',
  properties: {
    id: { type: 'integer', minimum: 1 },
    templateKey: { type: 'string' },
    templateLabel: { type: 'string' },
    targetKey: { type: 'string' },
    targetLabel: { type: 'string' },
    kind: { type: 'string', enum: NOTIFICATION_RULE_KINDS },
    active: { type: 'boolean' },
    uiEnabled: { type: 'boolean' },
    emailEnabled: { type: 'boolean' },
    discordEnabled: { type: 'boolean' },
    ntfyEnabled: { type: 'boolean' },
    pushoverEnabled: { type: 'boolean' },
    webhookEnabled: { type: 'boolean' },
    /** task events: only tasks of this kind / on this node (null: any) */
    taskKind: { type: ['string', 'null'] },
    nodeId: { type: ['string', 'null'] },
    /** the rule's settings as JSON text (a webhook URL shows as "set") */
    config: { type: 'string' },
    /** whether a channel gave up delivering (which, why and when in deliveryFailures) */
    failing: { type: 'boolean' },
    deliveryFailures: {
      type: 'object',
      propertyNames: { enum: DELIVERY_CHANNELS },
      additionalProperties: {
        type: 'object',
        properties: { error: { type: 'string' }, at: { type: 'string' } },
        required: ['error', 'at'],
        additionalProperties: false,
      },
    },
  },
  required: [
    'id',
    'templateKey',
    'templateLabel',
    'targetKey',
    'targetLabel',
    'kind',
    'active',
    'uiEnabled',
    'emailEnabled',
    'discordEnabled',
    'ntfyEnabled',
    'pushoverEnabled',
    'webhookEnabled',
    'taskKind',
    'nodeId',
    'config',
    'failing',
    'deliveryFailures',
  ],
  additionalProperties: false,
} as const);

const templateSchema = {
  title: 'NotificationTemplate',
  type: 'object',
  properties: {
    key: { type: 'string' },
    label: { type: 'string' },
    description: { type: 'string' },
    targetType: { type: 'string' },
    /** JSON text */
    defaultConfig: { type: 'string' },
    targets: {
      type: 'array',
      items: { type: 'object', properties: { key: { type: 'string' }, label: { type: 'string' } }, required: ['key', 'label'], additionalProperties: false },
    },
  },
  required: ['key', 'label', 'description', 'targetType', 'defaultConfig', 'targets'],
  additionalProperties: false,
} as const;

/** E23's answer and the rules list: `{rules, templates}`. */
export const rulesAndTemplatesSchema = {
  title: 'NotificationRulesAndTemplates',
  type: 'object',
  properties: { rules: { type: 'array', items: ruleSchema }, templates: { type: 'array', items: templateSchema } },
  required: ['rules', 'templates'],
  additionalProperties: false,
} as const;

/** E25 `{active}` and E24 `{dismissed}`. */
export const activeCountSchema = { type: 'object', properties: { active: count }, required: ['active'], additionalProperties: false } as const;
export const dismissedCountSchema = { type: 'object', properties: { dismissed: count }, required: ['dismissed'], additionalProperties: false } as const;
