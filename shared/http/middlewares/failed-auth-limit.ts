import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { tooManyRequests, unauthorized, type HttpError } from '#http/errors';
import { pruneFailedAuth, recordFailedAuth } from '#shared/auth/failed-auth';
import { failedAuthSettings } from '#shared/auth/failed-auth-settings';
import { clientAddress } from '#http/client-address';
import { getDb } from '#store/db';

/** The address the request came from: the client's, also behind the console's distribution (#http/client-address). */
export const sourceOf = (event: APIGatewayProxyEventV2): string => clientAddress(event) || 'unknown';

/**
 * The error for a refused credential: 401 saying why, or — once the source sent more failed credentials than
 * the limit allows in the current window — 429 with `Retry-After`. Every failure is counted in the store.
 */
export async function failedCredential(event: APIGatewayProxyEventV2, reason: string): Promise<HttpError> {
  const settings = failedAuthSettings();
  const db = getDb();
  const source = sourceOf(event);
  const verdict = await recordFailedAuth(db, source, settings);
  // a new window for this source: drop the rows of windows that ended, so the table holds active sources only
  if (verdict.failures === 1) await pruneFailedAuth(db, settings);
  if (!verdict.limited) return unauthorized(reason);
  // the 429 is recorded in the audit log by the pipeline's audit step, like every refusal
  return tooManyRequests(
    `too many failed authentications from ${verdict.counted}: more than ${settings.limit} in ${settings.windowS} s; retry after ${verdict.retryAfterS} s (a valid token is still accepted)`,
    verdict.retryAfterS,
  );
}
