import { nodeIdSchema } from '#domain/cluster/nodes';

/** The body fields of a rule (create and update); the domain checks the template and target exist. */
export const ruleFields = {
  targetKey: { type: 'string', minLength: 1, maxLength: 200 },
  taskKind: { type: ['string', 'null'], minLength: 1, maxLength: 64, pattern: '^[a-z][a-z0-9_.-]*$' },
  nodeId: { anyOf: [nodeIdSchema, { type: 'null' }] },
  active: { type: 'boolean' },
  uiEnabled: { type: 'boolean' },
  emailEnabled: { type: 'boolean' },
  ntfyEnabled: { type: 'boolean' },
  discordEnabled: { type: 'boolean' },
  pushoverEnabled: { type: 'boolean' },
  webhookEnabled: { type: 'boolean' },
  config: {
    type: 'object',
    properties: {
      to: { type: 'string', minLength: 3, maxLength: 1000 },
      ntfyTopic: { type: 'string', minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_-]+$' },
      ntfyPriority: { enum: ['min', 'low', 'default', 'high', 'max', '1', '2', '3', '4', '5'] },
      // an absolute http(s) URL (checked by the domain), or on update "set": keep the stored one
      webhookUrl: { type: 'string', minLength: 3, maxLength: 2000 },
    },
    // other keys are the template's own settings (e.g. minSeverity), kept as given
    additionalProperties: true,
    maxProperties: 50,
  },
} as const;
