import type { EndpointInput, EndpointSchema } from '#http/spec';
import { inventorySchema, nodeUuid } from './agent-schemas.ts';

export const schema = {
  summary: 'Agent: register the host at start (creates the node pending, or refreshes it); returns its queue and the configuration to re-apply',
  role: 'agent',
  method: 'POST',
  route: '/api/agent/register',
  body: {
    type: 'object',
    properties: {
      id: nodeUuid,
      name: { type: 'string', minLength: 1, maxLength: 255 },
      ip: { type: 'string', maxLength: 64 },
      inventory: inventorySchema,
      agentVersion: { type: 'string', maxLength: 64 },
      heartbeatIntervalS: { type: 'integer', minimum: 1, maximum: 3600 },
      /** the host's SSH host key fingerprints: peers connect to it only when it presents one of them */
      sshHostKeys: { type: 'array', maxItems: 16, items: { type: 'string', pattern: '^SHA256:[A-Za-z0-9+/]{43}$' } },
    },
    required: ['id', 'name', 'ip', 'inventory'],
    additionalProperties: false,
  },
  bodyLimit: 8 * 1024 * 1024,
  responses: { 200: 'node_registered', 201: 'node_registered', 503: 'queue_unavailable' },
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
