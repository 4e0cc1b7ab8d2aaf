import spec from '#spec/tokens/revoke';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { revokeApiToken } from '#domain/tokens/manage';
import type { Input } from './revoke.schema.ts';

/** POST /api/tokens/{id}/revoke. */
export const handler = endpoint<Input>(spec, async ({ path }, { db }) => ok('token_revoked', await revokeApiToken(db, path.id)));
