import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { forbidden } from '#shared/errors/domain-errors';
import { roleAllows, type Role } from '#shared/auth/roles';
import { verifyToken } from '#shared/auth/tokens';
import { touchToken } from '#shared/auth/last-use';
import { getDb } from '#store/db';
import { failedCredential } from './failed-auth-limit.ts';
import type { HmContext } from './responder.ts';

/**
 * Bearer-token auth: each request carries `Authorization: Bearer <token>`; a missing, malformed, unknown,
 * expired or revoked token is 401, a role that does not reach the endpoint's is 403. A middleware (not a
 * gateway authorizer) so that 401/403 are envelopes too. Every refused credential counts against its source;
 * past the limit the refusal is 429 (./failed-auth-limit.ts). A valid token is always checked and served, and
 * its last use is noted.
 */
export const authenticate = (required: Role): middy.MiddlewareObj<APIGatewayProxyEventV2, unknown, Error, HmContext> => ({
  before: async (request) => {
    const header = request.event.headers?.authorization ?? request.event.headers?.Authorization;
    if (!header) throw await failedCredential(request.event, 'missing Authorization header; send "Authorization: Bearer <token>"');
    const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!m) throw await failedCredential(request.event, 'malformed Authorization header; expected "Bearer <token>"');
    const check = await verifyToken(getDb(), m[1]);
    if (!check.ok) throw await failedCredential(request.event, check.reason);
    request.context.hm.principal = check.principal;
    await touchToken(getDb(), check.principal.tokenId, check.lastUsedAt);
    if (!roleAllows(check.principal.role, required)) {
      throw forbidden(
        required === 'agent'
          ? 'only agent tokens may call this endpoint'
          : `this operation requires the ${required} role; the token has ${check.principal.role}`,
      );
    }
  },
});
