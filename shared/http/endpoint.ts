import middy from '@middy/core';
import httpJsonBodyParser from '@middy/http-json-body-parser';
import type { APIGatewayProxyEventV2, APIGatewayProxyResultV2, Context } from 'aws-lambda';
import type { Kysely } from 'kysely';
import type { Reply } from '#http/envelope';
import type { CompiledSpec } from '#http/spec';
import type { Principal } from '#shared/auth/tokens';
import { checkSettings } from '#shared/config/read';
import { runAudited } from '#store/audit-scope';
import { getDb } from '#store/db';
import type { Database } from '#store/tables';
import { audit, auditInput, type AuditedContext } from './middlewares/audit.ts';
import { authenticate } from './middlewares/authenticate.ts';
import { validateInput } from './event-validator.ts';
import { bodyLimit } from './middlewares/body-limit.ts';
import { responder } from './middlewares/responder.ts';
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

// The middlewares type the event differently (raw vs parsed body); the chain is one runtime order.
type AnyMiddleware = middy.MiddlewareObj<any, any, Error, any>;

/** One stage of the pipeline, named so a test can show what the pipeline is worth without it. */
export interface Stage {
  name: 'audit' | 'respond' | 'storable-request' | 'authenticate' | 'body-limit' | 'json-body' | 'storable-body' | 'validate';
  middleware: AnyMiddleware;
}

/**
 * The pipeline's stages in the order they run: audit → responder (envelope, log line) → storable headers/path/query → auth →
 * body limit → JSON → storable body → validation. Validation runs the validators the build compiled (ajv
 * standalone), so nothing compiles a schema at cold start. An endpoint without a body schema takes no body:
 * whatever arrives is neither parsed nor handed on. A mutation's handler runs in the request's audit scope:
 * its first committed transaction records the audit row (shared/http/middlewares/audit.ts).
 */
export function pipelineStages(spec: CompiledSpec): Stage[] {
  const stages: Stage[] = [
    { name: 'audit', middleware: audit({ refusalsOnly: spec.auditRefusalsOnly === true }) as AnyMiddleware },
    { name: 'respond', middleware: responder() },
    { name: 'storable-request', middleware: storableRequest(spec) as AnyMiddleware },
    { name: 'authenticate', middleware: authenticate(spec.role) as AnyMiddleware },
    { name: 'body-limit', middleware: bodyLimit(spec.bodyLimit) as AnyMiddleware },
  ];
  if (spec.takesBody)
    stages.push(
      { name: 'json-body', middleware: httpJsonBodyParser() as AnyMiddleware },
      { name: 'storable-body', middleware: storableBody() as AnyMiddleware },
    );
  const validate = validateInput(spec);
  if (validate) stages.push({ name: 'validate', middleware: validate as AnyMiddleware });
  return stages;
}

/**
 * Wraps a handler in the pipeline; the handler receives validated input typed from its schema and returns a Reply.
 * Runs when the function's module loads: a setting of the functions with a bad value fails the cold start,
 * naming the setting, instead of the first request that happens to read it.
 */
export function endpoint<I extends { path: unknown; query: unknown; body: unknown }>(spec: CompiledSpec, fn: EndpointFn<I>) {
  checkSettings('functions');
  return withStages(spec, fn, pipelineStages(spec));
}

/** A handler behind the given stages, in their order. */
export function withStages<I extends { path: unknown; query: unknown; body: unknown }>(spec: CompiledSpec, fn: EndpointFn<I>, stages: Stage[]) {
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
    auditInput(context, input.body);
    return (await (context.audit ? runAudited(context.audit, run) : run())) as unknown as APIGatewayProxyResultV2;
  };
  // callers hand over a Lambda Context; the log stage adds `hm` to it before any other stage runs
  const chain = middy<APIGatewayProxyEventV2, APIGatewayProxyResultV2, Error, Context>();
  for (const stage of stages) chain.use(stage.middleware);
  return chain.handler(base as any);
}
