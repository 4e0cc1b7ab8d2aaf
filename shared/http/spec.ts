import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { Role } from '#shared/auth/roles';
import { id32 } from '#store/ids';
import { nodeIdSchema } from '#domain/cluster/nodes';

/**
 * The declaration of one endpoint, written once in `functions/<area>/<op>.schema.ts`. The build compiles it
 * (ajv standalone) into the validators the handler uses and into the OpenAPI document, so the two cannot drift.
 */
export interface EndpointSchema {
  /** spec operation number (E1–E25), or omitted for endpoints beyond the spec */
  operation?: string;
  summary: string;
  role: Role;
  /** the HTTP method of its route; with `route`, what the build generates serverless.yml's function from */
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  /** the route's path, `{name}` for each path parameter (which `path` below must validate) */
  route: `/api/${string}`;
  /** path parameters; coerced from strings */
  path?: JSONSchema;
  /** query string parameters; coerced from strings, defaults applied */
  query?: JSONSchema;
  /** JSON body; when omitted the endpoint takes none (an absent or empty body is accepted) */
  body?: JSONSchema;
  /** maximum body size in bytes (default 1 MiB) */
  bodyLimit?: number;
  /**
   * `refusals`: a routine report (an agent's heartbeat, telemetry sample, task progress) is audited only when
   * refused (status ≥ 400); otherwise every mutation is audited. Routine reports arrive every few seconds
   * from every host: auditing them would make the audit log the store's largest table by far.
   */
  audit?: 'refusals';
  /**
   * `create`: this function creates the node queues (and their dead-letter alarms), so its deployed role may
   * (serverless.yml's HmQueueCreatorRole); no other function may. Functions that send task messages are found
   * by the build (their bundle holds the dispatcher) and get the sending role.
   */
  queues?: 'create';
  /**
   * The function's Lambda memory in MB (serverless.yml `memorySize`) when not the provider's (256). Lambda
   * bills memory × duration and gives CPU in proportion to memory, so less memory saves only where the time is
   * spent waiting: the agent's telemetry and heartbeat at 128 MB measured the same GB-s or more, and a cold
   * start twice as long (`npm run bench`, lambda-memory; docs/scale.md), so none sets it today.
   */
  memoryMb?: 128 | 192 | 256 | 512 | 1024;
  /** the statuses this endpoint can answer besides 401/403/500, for the OpenAPI document */
  responses?: Record<number, string>;
  /** the JSON Schema of the success response's `data` (the 2xx status in `responses`); checked by the suite */
  data?: JSONSchema;
  /** the JSON Schema of `data` for named errors whose `data` is not null, by message code */
  errorData?: Record<string, JSONSchema>;
}

type Of<S, K extends string> = S extends { [P in K]: infer T } ? (T extends JSONSchema ? FromSchema<T> : never) : Record<string, never>;

/** The validated input a handler receives, derived from its schema. */
export interface EndpointInput<S extends EndpointSchema> {
  path: Of<S, 'path'>;
  query: Of<S, 'query'>;
  body: Of<S, 'body'>;
}

/** A compiled validator: true when valid; otherwise `errors` holds ajv's error objects. */
export interface CompiledValidator {
  (data: unknown): boolean;
  errors?: Array<{ instancePath: string; keyword: string; message?: string; params: Record<string, unknown> }> | null;
}

/** What the build emits for each endpoint (`#spec/<area>/<op>`). */
export interface CompiledSpec {
  name: string;
  role: Role;
  bodyLimit: number;
  takesBody: boolean;
  /** audited only when refused (EndpointSchema.audit) */
  auditRefusalsOnly?: boolean;
  /** validates `{path, query}` (coercing strings) */
  request: CompiledValidator | null;
  /** validates the parsed body, strictly */
  body: CompiledValidator | null;
  /** the integer-typed path and query parameters, which must be canonical decimal before coercion */
  integers?: { path: string[]; query: string[] };
}

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

/** Shared schema pieces. */
export { id32 };
export const pathId = <K extends string>(name: K) =>
  ({ type: 'object', properties: { [name]: id32 } as { [P in K]: typeof id32 }, required: [name], additionalProperties: false }) as const;

/** The query parameters of the page-numbered lists: `page` ≥ 1 (default 1), `size` 1–100 (default 25). */
export const pageQuery = {
  page: { ...id32, default: 1 },
  size: { type: 'integer', minimum: 1, maximum: 100, default: 25 },
} as const;

/** `?nodeId=`, beyond the spec on host-wide operations: the node to act on (default: the primary node). */
export const nodeQuery = { type: 'object', properties: { nodeId: nodeIdSchema }, additionalProperties: false } as const;

/** A set of record ids for the bulk operations (E21, E23): non-empty, unique, each 1..2^31−1. */
export const idSetBody = {
  type: 'object',
  properties: { ids: { type: 'array', minItems: 1, maxItems: 10000, uniqueItems: true, items: id32 } },
  required: ['ids'],
  additionalProperties: false,
} as const;
