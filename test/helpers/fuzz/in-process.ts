import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { FuzzRequest, Operation } from './requests.ts';

const decode = (s: string) => {
  try {
    return decodeURIComponent(s.replace(/\+/g, ' '));
  } catch {
    return s;
  }
};

/**
 * The event API Gateway (HTTP API, payload 2.0) hands a function for a fuzzed request: path parameters and
 * query decoded, a key given twice joined with a comma.
 */
export function toEvent(op: Operation, req: FuzzRequest, token: string): APIGatewayProxyEventV2 {
  const [rawPath, rawQuery = ''] = req.url.split(/\?(.*)/s);
  const names = [...op.path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
  const match = new RegExp(`^${op.path.replace(/\{\w+\}/g, '([^/]*)')}$`).exec(rawPath);
  const pathParameters = Object.fromEntries(names.map((n, i) => [n, decode(match?.[i + 1] ?? '')]));
  const query: Record<string, string> = {};
  for (const part of rawQuery.split('&').filter(Boolean)) {
    const [k, v = ''] = part.split(/=(.*)/s);
    const key = decode(k);
    query[key] = key in query ? `${query[key]},${decode(v)}` : decode(v);
  }
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  if (req.contentType) headers['content-type'] = req.contentType;
  return {
    version: '2.0',
    routeKey: `${op.method} ${op.path}`,
    rawPath,
    rawQueryString: rawQuery,
    pathParameters: names.length ? pathParameters : undefined,
    queryStringParameters: Object.keys(query).length ? query : undefined,
    headers,
    body: req.body,
    isBase64Encoded: false,
    requestContext: { http: { method: op.method, path: rawPath }, requestId: 'fuzz' },
  } as unknown as APIGatewayProxyEventV2;
}
