import middy from '@middy/core';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2 } from 'aws-lambda';
import type { Kysely } from 'kysely';
import type { Reply } from '#http/envelope';
import type { CompiledSpec } from '#http/spec';
import type { Principal } from '#shared/auth/tokens';
import { getDb } from '#store/db';
import type { Database } from '#store/tables';
import { authenticate } from './middlewares/authenticate.ts';
import { bodyLimit } from './middlewares/body-limit.ts';
import { jsonBody, type ParsedBodyEvent } from './middlewares/json-body.ts';
import { pipelineLog, type HmContext } from './middlewares/pipeline-log.ts';
import { storableInput } from './middlewares/storable-input.ts';
import { validate } from './middlewares/validate.ts';

export interface HandlerContext {
  db: Kysely<Database>;
  principal: Principal;
  event: APIGatewayProxyEventV2;
  requestId: string;
}

export type EndpointFn<I> = (input: I, ctx: HandlerContext) => Promise<Reply>;

/**
 * Wraps a handler in the pipeline of DESIGN §3: log+envelope → storable input → auth → body limit → JSON → validation → handler.
 * The handler receives validated input typed from its schema and returns a Reply.
 */
export function endpoint<I extends { path: unknown; query: unknown; body: unknown }>(spec: CompiledSpec, fn: EndpointFn<I>) {
  const base = async (event: ParsedBodyEvent, context: HmContext) => {
    const raw = event as unknown as APIGatewayProxyEventV2;
    const input = { path: event.pathParameters ?? {}, query: event.queryStringParameters ?? {}, body: event.body } as I;
    return (await fn(input, {
      db: getDb(),
      principal: context.hm.principal!,
      event: raw,
      requestId: context.awsRequestId ?? raw.requestContext?.requestId,
    })) as unknown as APIGatewayProxyResultV2;
  };
  // The middlewares type the event differently (raw vs parsed body); the chain is one runtime order.
  type Any = middy.MiddlewareObj<any, any, Error, any>;
  return middy<APIGatewayProxyEventV2, APIGatewayProxyResultV2, Error, HmContext>()
    .use(pipelineLog())
    .use(storableInput(spec) as Any)
    .use(authenticate(spec.role) as Any)
    .use(bodyLimit(spec.bodyLimit) as Any)
    .use(jsonBody(spec.takesBody) as Any)
    .use(validate(spec) as Any)
    .handler(base as any);
}
