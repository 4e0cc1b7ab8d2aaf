import type { TokenView } from '#domain/tokens/manage';
import { describes } from '#http/responses/same';
import { ROLES } from '#shared/auth/roles';

const time = { type: 'string', format: 'date-time' } as const;
const timeOrNull = { type: ['string', 'null'], format: 'date-time' } as const;

const tokenProperties = {
  id: { type: 'integer', minimum: 1 },
  name: { type: 'string' },
  role: { type: 'string', enum: ROLES },
  nodeId: { type: ['string', 'null'], description: 'agent tokens: the node the agent speaks for' },
  createdAt: time,
  expiresAt: { ...timeOrNull, description: 'null: never expires' },
  lastUsedAt: { ...timeOrNull, description: 'when the token was last accepted, to the minute' },
  revokedAt: timeOrNull,
  state: { type: 'string', enum: ['active', 'expired', 'revoked'] },
} as const;
const tokenRequired = ['id', 'name', 'role', 'nodeId', 'createdAt', 'expiresAt', 'lastUsedAt', 'revokedAt', 'state'] as const;

/** A token as listed: never its secret, nor the secret's hash. */
export const tokenSchema = describes<TokenView>()({
  title: 'ApiToken',
  type: 'object',
  properties: tokenProperties,
  required: [...tokenRequired],
  additionalProperties: false,
});

/** A token just created: its secret, shown this once. */
export const createdTokenSchema = describes<TokenView & { secret: string }>()({
  title: 'ApiTokenCreated',
  type: 'object',
  properties: { ...tokenProperties, secret: { type: 'string', description: 'the bearer secret; shown only in this answer' } },
  required: [...tokenRequired, 'secret'],
  additionalProperties: false,
});
