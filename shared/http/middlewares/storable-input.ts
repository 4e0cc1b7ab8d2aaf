import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ValidationError, type FieldError } from '#http/errors';
import { findUnstorable, isCanonicalInteger, NOT_CANONICAL, unstorableProblem } from '#http/input-rules';
import type { CompiledSpec } from '#http/spec';

function parsedBody(event: APIGatewayProxyEventV2, spec: CompiledSpec): unknown {
  const raw = event.body;
  if (!spec.takesBody || typeof raw !== 'string' || raw === '') return undefined;
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (Buffer.byteLength(text) > spec.bodyLimit) return undefined; // the body limit answers 413
  try {
    return JSON.parse(text);
  } catch {
    return undefined; // the JSON parser answers 400 malformed_json
  }
}

/**
 * First check of every request, before auth (the token is looked up in the store) and before anything else
 * reads the input: headers, path, query and body hold only storable text (see input-rules), and the integer
 * path and query parameters are canonical decimal. Either failure is a 400 validation_failed naming the field
 * (`header.authorization`, `path.ctid`, `query.nodeId`, `body.hooks.prestart.script`).
 */
export const storableInput = (spec: CompiledSpec): middy.MiddlewareObj<APIGatewayProxyEventV2> => ({
  before: (request) => {
    const event = request.event;
    const errors: FieldError[] = [];
    for (const [name, value] of Object.entries(event.headers ?? {})) {
      const problem = unstorableProblem(name) ?? (typeof value === 'string' ? unstorableProblem(value) : undefined);
      if (problem) errors.push({ field: `header.${name.toLowerCase()}`, problem });
    }
    const params = { path: event.pathParameters ?? {}, query: event.queryStringParameters ?? {} };
    for (const root of ['path', 'query'] as const) {
      findUnstorable(params[root], root, errors);
      for (const name of spec.integers?.[root] ?? []) {
        const value = params[root][name];
        if (typeof value === 'string' && !unstorableProblem(value) && !isCanonicalInteger(value)) errors.push({ field: `${root}.${name}`, problem: NOT_CANONICAL });
      }
    }
    const body = parsedBody(event, spec);
    if (body !== undefined) findUnstorable(body, 'body', errors);
    if (errors.length) throw new ValidationError(errors);
  },
});
