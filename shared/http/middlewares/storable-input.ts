import type middy from '@middy/core';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { ValidationError, type FieldError } from '#shared/errors/domain-errors';
import { findUnstorable, isCanonicalInteger, NOT_CANONICAL, unstorableProblem } from '#http/input-rules';
import type { CompiledSpec } from '#http/spec';

/**
 * First check of every request, before auth (the token is looked up in the store) and before anything else
 * reads the input: headers, path and query hold only storable text (see input-rules), and the integer path and
 * query parameters are canonical decimal. Either failure is a 400 validation_failed naming the field
 * (`header.authorization`, `path.ctid`, `query.nodeId`).
 */
export const storableRequest = (spec: CompiledSpec): middy.MiddlewareObj<APIGatewayProxyEventV2> => ({
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
        if (typeof value === 'string' && !unstorableProblem(value) && !isCanonicalInteger(value))
          errors.push({ field: `${root}.${name}`, problem: NOT_CANONICAL });
      }
    }
    if (errors.length) throw new ValidationError(errors);
  },
});

/** The same storable-text rule for the body, once the JSON parser has run: `body.hooks.prestart.script`. */
export const storableBody = (): middy.MiddlewareObj<{ body?: unknown }> => ({
  before: (request) => {
    const errors = findUnstorable(request.event.body, 'body');
    if (errors.length) throw new ValidationError(errors);
  },
});
