import { randomUUID } from 'node:crypto';
import type { APIGatewayProxyEventV2, Context } from 'aws-lambda';

export interface EventOptions {
  method: string;
  /** route template, e.g. `/api/vm/{rid}/registration` (or `*` for the catch-all) */
  route: string;
  /** values for `{param}`s; missing ones become `1` */
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  token?: string | null;
  body?: string;
  contentType?: string;
}

/** An API Gateway HTTP API (payload 2.0) event as Lambda delivers it. */
export function apiEvent(o: EventOptions): APIGatewayProxyEventV2 {
  const params: Record<string, string> = {};
  const rawPath =
    o.route === '*' ? '/api/bench/no-such-route' : o.route.replace(/\{([^}+]+)\+?\}/g, (_, name: string) => (params[name] = o.pathParameters?.[name] ?? '1'));
  const headers: Record<string, string> = { host: 'bench.local', 'user-agent': 'hm-bench' };
  if (o.token) headers.authorization = `Bearer ${o.token}`;
  if (o.body !== undefined) headers['content-type'] = o.contentType ?? 'application/json';
  const rawQueryString = new URLSearchParams(o.query ?? {}).toString();
  const requestId = randomUUID();
  return {
    version: '2.0',
    routeKey: o.route === '*' ? '$default' : `${o.method} ${o.route}`,
    rawPath,
    rawQueryString,
    headers,
    queryStringParameters: o.query && Object.keys(o.query).length ? { ...o.query } : undefined,
    pathParameters: Object.keys(params).length ? params : undefined,
    body: o.body,
    isBase64Encoded: false,
    requestContext: {
      accountId: 'offlineContext_accountId',
      apiId: 'bench',
      domainName: 'bench.local',
      domainPrefix: 'bench',
      http: { method: o.method, path: rawPath, protocol: 'HTTP/1.1', sourceIp: '127.0.0.1', userAgent: 'hm-bench' },
      requestId,
      routeKey: o.route === '*' ? '$default' : `${o.method} ${o.route}`,
      stage: '$default',
      time: new Date().toUTCString(),
      timeEpoch: Date.now(),
    },
  } as APIGatewayProxyEventV2;
}

/** A Lambda context; getRemainingTimeInMillis makes Middy arm its early-timeout timer as on Lambda. */
export function lambdaContext(name = 'bench'): Context {
  const deadline = Date.now() + 28_000;
  return {
    callbackWaitsForEmptyEventLoop: true,
    functionName: name,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${name}`,
    memoryLimitInMB: '256',
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${name}`,
    logStreamName: 'bench',
    getRemainingTimeInMillis: () => deadline - Date.now(),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}
