import type middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import { errorResponse, successResponse, type Reply } from '#http/envelope';
import { renderError } from '#http/error-status';
import { fromMiddyError } from '#http/middy-errors';
import { mapStoreError } from '#store/tx';
import type { Principal } from '#shared/auth/tokens';
import { log } from '#shared/log/logger';
import { mappedStack } from '#shared/log/mapped-stack';

/** Per-invocation state, kept on the Lambda context (Middy's `internal` is shared between invocations). */
interface RequestState {
  started: number;
  principal?: Principal;
}
export type HmContext = Context & { hm: RequestState };

type Req = middy.Request<APIGatewayProxyEventV2, APIGatewayProxyResultV2, Error, HmContext>;

function logLine(request: Req, status: number, extra: Record<string, unknown> = {}) {
  const { event, context } = request;
  const p = context.hm?.principal;
  // One structured line per request; never the token, the headers or the body.
  log[status >= 500 ? 'error' : 'info']('request', {
    // the Lambda request id is unique per invocation everywhere (serverless-offline's gateway id is a constant)
    requestId: context?.awsRequestId ?? event.requestContext?.requestId,
    method: event.requestContext?.http?.method,
    route: event.routeKey,
    path: event.rawPath,
    status,
    durationMs: Number((performance.now() - (context.hm?.started ?? performance.now())).toFixed(2)),
    principal: p ? `${p.name}(${p.role})` : null,
    ...extra,
  });
}

/**
 * The responder, the outermost middleware: turns the handler's Reply into the envelope, renders every error as the envelope
 * (500 internal_error hides the cause, which goes to the log), and writes the request's log line.
 */
export const responder = (): middy.MiddlewareObj<APIGatewayProxyEventV2, APIGatewayProxyResultV2, Error, HmContext> => ({
  before: (request) => {
    request.context.hm = { started: performance.now() };
  },
  after: (request) => {
    request.response = successResponse(request.response as unknown as Reply);
    logLine(request, (request.response as { statusCode: number }).statusCode);
  },
  onError: (request) => {
    const err = fromMiddyError(request.error, request.event) ?? mapStoreError(request.error);
    const known = renderError(err);
    if (known) {
      request.response = errorResponse(known.statusCode, known.code, known.detail, known.data, known.headers);
      logLine(request, known.statusCode, { code: known.code });
    } else {
      request.response = errorResponse(500, 'internal_error', 'an unexpected error occurred; see the server log for the request id');
      const e = err as Error;
      logLine(request, 500, { code: 'internal_error', cause: e?.message, stack: mappedStack(e?.stack) });
    }
  },
});
