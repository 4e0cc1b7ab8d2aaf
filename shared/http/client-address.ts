import { createHash, timingSafeEqual } from 'node:crypto';
import { isIP } from 'node:net';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { setting } from '#shared/config/read';

/**
 * The header the console's CloudFront distribution adds to every request it forwards to the API, holding the
 * stack's edge secret (serverless.yml: a generated Secrets Manager secret, resolved into the distribution's
 * origin header and the functions' HM_EDGE_SECRET at deploy). A client reaching the API directly cannot send it.
 */
export const EDGE_SECRET_HEADER = 'x-hm-edge-secret';
/** CloudFront's `<address>:<port>` of the viewer (IPv6 unbracketed, e.g. `2001:db8::1:443`). */
export const VIEWER_ADDRESS_HEADER = 'cloudfront-viewer-address';

const digest = (s: string) => createHash('sha256').update(s).digest();

/** True when the request carries the edge secret: it came through this stack's distribution. */
function viaDistribution(event: APIGatewayProxyEventV2, env: NodeJS.ProcessEnv): boolean {
  const secret = setting('HM_EDGE_SECRET', env);
  // unset (npm start, a stack without the distribution), or an unresolved deploy-time reference (serverless-offline
  // renders the template's `{{resolve:…}}` as text anyone could read): nothing proves the distribution
  if (!secret || secret.startsWith('{{')) return false;
  const sent = event.headers?.[EDGE_SECRET_HEADER];
  // compared as digests: equal length, and no timing hint of how much of a guess matched
  return typeof sent === 'string' && timingSafeEqual(digest(sent), digest(secret));
}

/** The viewer's address from CloudFront's header, or undefined when it is absent or not an address. */
function viewerAddress(event: APIGatewayProxyEventV2): string | undefined {
  const raw = event.headers?.[VIEWER_ADDRESS_HEADER]?.trim();
  if (!raw) return undefined;
  // CloudFront always appends the port; a bare address is taken as it is
  const cut = raw.lastIndexOf(':');
  const address = cut > 0 && /^\d{1,5}$/.test(raw.slice(cut + 1)) ? raw.slice(0, cut) : '';
  if (isIP(address)) return address;
  return isIP(raw) ? raw : undefined;
}

/**
 * The address of the client a request came from, as the audit log and the failed-authentication limit key it:
 * the viewer CloudFront saw when the request came through the stack's distribution (it proves so with the edge
 * secret), else the address the gateway saw. A `CloudFront-Viewer-Address` sent without the secret is ignored:
 * anyone may send that header straight to the API's own endpoint.
 */
export function clientAddress(event: APIGatewayProxyEventV2, env: NodeJS.ProcessEnv = process.env): string {
  const gateway = event.requestContext?.http?.sourceIp ?? '';
  if (!viaDistribution(event, env)) return gateway;
  return viewerAddress(event) ?? gateway;
}
