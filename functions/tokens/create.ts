import spec from '#spec/tokens/create';
import { endpoint } from '#http/endpoint';
import { created } from '#http/envelope';
import { createApiToken } from '#domain/tokens/manage';
import type { Input } from './create.schema.ts';

/** POST /api/tokens: 201 with the new token and its secret (never shown again; the store keeps its hash). */
export const handler = endpoint<Input>(spec, async ({ body }, { db }) => created('token_created', await createApiToken(db, body)));
