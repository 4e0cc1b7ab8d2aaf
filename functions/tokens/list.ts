import spec from '#spec/tokens/list';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { listApiTokens } from '#domain/tokens/manage';

/** GET /api/tokens. */
export const handler = endpoint(spec, async (_input, { db }) => ok('tokens_listed', await listApiTokens(db)));
