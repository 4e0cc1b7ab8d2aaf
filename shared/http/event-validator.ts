import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { CompiledSpec, CompiledValidator } from '#http/spec';

type AjvError = NonNullable<CompiledValidator['errors']>[number];
type Event = Omit<APIGatewayProxyEventV2, 'body'> & { body?: unknown };

/**
 * One `eventSchema` for @middy/validator out of the endpoint's two build-compiled validators: path and query
 * are coerced from strings (defaults applied) and written back to the event; the parsed body is checked
 * strictly. Two validators because ajv coerces per instance, not per subschema. Every failing field is
 * reported at once, its instancePath rooted at `/path`, `/query` or `/body`.
 */
export function eventValidator(spec: CompiledSpec): CompiledValidator | undefined {
  const { request, body } = spec;
  if (!request && !body) return undefined;
  const check: CompiledValidator = (data) => {
    const event = data as Event;
    const errors: AjvError[] = [];
    if (request) {
      const req = { path: { ...(event.pathParameters ?? {}) }, query: { ...(event.queryStringParameters ?? {}) } };
      if (!request(req)) errors.push(...(request.errors ?? []));
      event.pathParameters = req.path as Record<string, string>;
      event.queryStringParameters = req.query as Record<string, string>;
    }
    if (body) {
      // an absent body arrives as undefined or null (serverless-offline), and JSON.parse(null) is null
      if (event.body == null) errors.push({ instancePath: '/body', keyword: 'presence', message: 'is required: send a JSON object', params: {} });
      else if (!body(event.body)) errors.push(...(body.errors ?? []).map((e) => ({ ...e, instancePath: `/body${e.instancePath}` })));
    }
    check.errors = errors.length ? errors : null;
    return errors.length === 0;
  };
  return check;
}
