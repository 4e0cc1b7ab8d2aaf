import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import validator, { type Options as ValidatorOptions } from '@middy/validator';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import type { Kysely } from 'kysely';
import type { Reply } from '#http/envelope';
import type { CompiledSpec } from '#http/spec';
import type { Principal } from '#shared/auth/tokens';
import { runAudited } from '#store/audit-scope';
import { getDb } from '#store/db';
import type { Database } from '#store/tables';
import { audit, auditPrincipal, type AuditedContext } from './middlewares/audit.ts';
import { authenticate } from './middlewares/authenticate.ts';
import { eventValidator } from './event-validator.ts';
import { bodyLimit } from './middlewares/body-limit.ts';
import { pipelineLog, type HmContext } from './middlewares/pipeline-log.ts';
import { storableBody, storableRequest } from './middlewares/storable-input.ts';

/** The event once the JSON parser has run: `body` is whatever the JSON held. */
type ParsedBodyEvent = Omit<APIGatewayProxyEventV2, 'body'> & { body?: unknown };

export interface HandlerContext {
  db: Kysely<Database>;
  principal: Principal;
  event: APIGatewayProxyEventV2;
  requestId: string;
}

export type EndpointFn<I> = (input: I, ctx: HandlerContext) => Promise<Reply>;

/**
 * Wraps a handler in the pipeline: audit → log+envelope → storable headers/path/query → auth → body limit → JSON →
 * storable body → validation → handler.
 * The handler receives validated input typed from its schema and returns a Reply. Validation runs the
 * validators the build compiled (ajv standalone), so nothing compiles a schema at cold start. An endpoint
 * without a body schema takes no body: whatever arrives is neither parsed nor handed on.
 * A mutation's handler runs in the request's audit scope: its first committed transaction records the audit
 * row (shared/http/middlewares/audit.ts).
 */
export function endpoint<I extends { path: unknown; query: unknown; body: unknown }>(spec: CompiledSpec, fn: EndpointFn<I>) {
  const base = async (event: ParsedBodyEvent, context: AuditedContext) => {
    const raw = event as unknown as APIGatewayProxyEventV2;
    const input = { path: event.pathParameters ?? {}, query: event.queryStringParameters ?? {}, body: spec.takesBody ? event.body : undefined } as I;
    const run = () =>
      fn(input, {
        db: getDb(),
        principal: context.hm.principal!,
        event: raw,
        requestId: context.awsRequestId ?? raw.requestContext?.requestId,
      });
    auditPrincipal(context);
    return (await (context.audit ? runAudited(context.audit, run) : run())) as unknown as APIGatewayProxyResultV2;
  };
  // The middlewares type the event differently (raw vs parsed body); the chain is one runtime order.
  type Any = middy.MiddlewareObj<any, any, Error, any>;
  const chain = middy<APIGatewayProxyEventV2, APIGatewayProxyResultV2, Error, HmContext>()
    .use(audit() as Any)
    .use(pipelineLog())
    .use(storableRequest(spec) as Any)
    .use(authenticate(spec.role) as Any)
    .use(bodyLimit(spec.bodyLimit) as Any);
  if (spec.takesBody) chain.use(httpJsonBodyParser() as Any).use(storableBody() as Any);
  const eventSchema = eventValidator(spec);
  // its types ask for an Ajv instance; at runtime it calls the compiled validate function, which this is
  if (eventSchema) chain.use(validator({ eventSchema: eventSchema as unknown as ValidatorOptions['eventSchema'] }) as Any);
  return chain.handler(base as any);
}
