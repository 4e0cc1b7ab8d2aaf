import type middy from '@middy/core';
import { log } from '#shared/log/logger';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import { verifyToken } from '#shared/auth/tokens';
import { completeAudit, recordAudit } from '#store/audit';
import type { AuditScope } from '#store/audit-scope';
import { getDb } from '#store/db';
import type { HmContext } from './responder.ts';
import { clientAddress } from '../client-address.ts';

/** Requests that change nothing: audited only when refused. */
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);
/** Refusals audited on every route: no or a bad token, a role too low, too many failed attempts. */
const REFUSED = new Set([401, 403, 429]);

export type AuditedContext = HmContext & { audit?: AuditScope };
type Req = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyResultV2, Error, AuditedContext>;

/**
 * An identifier as the API's ids are spelled (integers, node UUIDs, names): the audit row takes a path parameter or
 * the `nodeId` query only in this form. Refused requests are audited too, before their input is validated, so a
 * raw value could plant text (a newline, a forged `id:1 route:…`) in the log; such a value is left out.
 */
const IDENTIFIER = /^[A-Za-z0-9][A-Za-z0-9._:-]{0,63}$/;

/**
 * The target named by the path's parameters and the `nodeId` query (`ctid:101 node:<uuid>`), to which the
 * validated body's `nodeId` is added (auditInput); a task's resource key replaces it. Values that are not
 * identifiers are left out.
 */
function resourceOf(event: APIGatewayProxyEventV2): string {
  const parts = Object.entries(event.pathParameters ?? {})
    .filter(([, v]) => typeof v === 'string' && IDENTIFIER.test(v))
    .map(([k, v]) => `${k}:${v}`);
  const node = event.queryStringParameters?.nodeId;
  if (node && IDENTIFIER.test(node)) parts.push(`node:${node}`);
  return parts.join(' ');
}

const taskIdOf = (response: APIGatewayProxyResultV2 | null | undefined): number | null => {
  const location = (response as { headers?: Record<string, unknown> })?.headers?.Location;
  const m = typeof location === 'string' ? /^\/api\/tasks\/(\d+)$/.exec(location) : null;
  return m ? Number(m[1]) : null;
};

/** The answer says the store did not answer (unreachable, or a statement timed out): 503 cluster_consensus_unavailable. */
function storeUnavailable(request: Req, status: number): boolean {
  if (status !== 503) return false;
  const body = (request.response as { body?: unknown } | undefined)?.body;
  try {
    return typeof body === 'string' && (JSON.parse(body) as { message?: string }).message === 'cluster_consensus_unavailable';
  } catch {
    return false;
  }
}

async function finish(request: Req): Promise<void> {
  const scope = request.context.audit;
  const status = (request.response as { statusCode?: number } | undefined)?.statusCode;
  if (!scope || status === undefined) return;
  const mutation = !READS.has(scope.entry.method);
  if (!mutation && !REFUSED.has(status)) return;
  // a routine report (heartbeat, telemetry, progress, an unchanged inventory) is audited only when refused
  if (scope.routine && status < 400) return;
  // a request refused after authentication (a role too low, invalid input) never reached auditInput
  namePrincipal(request.context);
  // one refused for its input before authentication (a non-canonical id in its path: 400) still names its caller
  // when its token is valid; a refused credential (401, 429) is not looked up again, nor is anything after a 5xx
  // (a store that did not answer would only be waited for twice)
  if (scope.entry.tokenId === null && status >= 400 && status < 500 && status !== 401 && status !== 429) await nameTokenHolder(request, scope);
  const taskId = taskIdOf(request.response);
  const write = async () => {
    try {
      if (scope.recordedId !== undefined) await completeAudit(getDb(), scope.recordedId, status, taskId);
      else await recordAudit(getDb(), { ...scope.entry, status, taskId });
    } catch (e) {
      // the answer stands (a committed change is not undone by a failed audit write); the failure is logged
      log.error('audit write failed', { requestId: scope.entry.requestId, route: scope.entry.route, cause: (e as Error)?.message });
    }
  };
  if (storeUnavailable(request, status)) {
    // The store has just failed to answer within the query timeout: waiting for it again would double the time
    // the caller waits for a 503. Nothing was committed; the row is written when the store answers (best effort),
    // and the log line names the request meanwhile (identifiers only, as the row would).
    const { requestId, route, method, resource, tokenId, sourceIp } = scope.entry;
    log.warn('audit write not awaited: the store is unavailable', { requestId, method, route, resource, tokenId, sourceIp, status });
    void write();
    return;
  }
  await write();
}

/**
 * Outermost middleware: opens the request's audit scope (the handler runs inside it, so the first
 * transaction it commits records the row with the change — shared/store/audit-scope.ts), and once the answer
 * is rendered sets the row's status. A mutation that committed nothing (refused, invalid, failed) and a
 * refused read get their row then. Only identifiers are kept: never the Authorization header or a body.
 * `refusalsOnly` (a routine agent report): no row unless the request is refused.
 */
export const audit = (o: { refusalsOnly?: boolean } = {}): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyResultV2, Error, AuditedContext> => ({
  before: (request) => {
    const { event, context } = request;
    request.context.audit = {
      entry: {
        tokenId: null,
        tokenName: '',
        role: '',
        sourceIp: clientAddress(event),
        method: (event.requestContext?.http?.method ?? '').toUpperCase(),
        route: event.routeKey && event.routeKey !== '$default' ? event.routeKey.replace(/^\S+\s+/, '') : (event.rawPath ?? ''),
        resource: resourceOf(event),
        requestId: context.awsRequestId ?? event.requestContext?.requestId ?? '',
      },
      attemptTasks: [],
      routine: o.refusalsOnly === true,
    };
  },
  after: finish,
  onError: finish,
});

/** Names the holder of the request's bearer token in the scope, when the token is valid (no use noted, nothing counted). */
async function nameTokenHolder(request: Req, scope: AuditScope): Promise<void> {
  const header = request.event.headers?.authorization ?? request.event.headers?.Authorization;
  const m = header ? /^Bearer\s+(\S+)\s*$/i.exec(header) : null;
  if (!m) return;
  try {
    const check = await verifyToken(getDb(), m[1]!);
    if (check.ok) Object.assign(scope.entry, { tokenId: check.principal.tokenId, tokenName: check.principal.name, role: check.principal.role });
  } catch {
    // the store did not answer: the row is written without the caller, as before
  }
}

/** Once authenticated, the scope names the caller. */
function namePrincipal(context: AuditedContext): void {
  const p = context.hm?.principal;
  if (context.audit && p) Object.assign(context.audit.entry, { tokenId: p.tokenId, tokenName: p.name, role: p.role });
}

/**
 * Before the handler runs (its transaction writes the row): the scope names the caller, and a validated
 * body's `nodeId` names its node (`node:<uuid>`, e.g. the node E16 admits). Identifiers only: nothing else of
 * the body is kept.
 */
export function auditInput(context: AuditedContext, body: unknown): void {
  namePrincipal(context);
  const nodeId = (body as { nodeId?: unknown } | null | undefined)?.nodeId;
  const entry = context.audit?.entry;
  if (!entry || typeof nodeId !== 'string' || nodeId === '') return;
  const node = `node:${nodeId}`;
  if (!entry.resource.split(' ').includes(node)) entry.resource = entry.resource ? `${entry.resource} ${node}` : node;
}
