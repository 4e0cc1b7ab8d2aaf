import spec from '#spec/auth/whoami';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';

/** GET /api/auth/whoami: the principal the bearer token stands for (never the token itself). */
export const handler = endpoint(spec, async (_input, { principal }) => ok('whoami', { name: principal.name, role: principal.role }));
