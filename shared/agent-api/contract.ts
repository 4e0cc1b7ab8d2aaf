import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import { id32 } from './ids.ts';
import { inventorySchema } from './inventory.ts';
import type { NodeView } from './nodes.ts';
import { finishReportSchema, progressReportSchema } from './reports.ts';
import type { StartAnswer, TaskView } from './tasks.ts';
import { telemetrySampleSchema, type TelemetryStored } from './telemetry.ts';

/**
 * The contract between the agent and the control plane's /api/agent/* endpoints, written once: per call its
 * method, route, path parameters, request body schema and response `data` type. The endpoint declarations
 * (functions/agent/*.schema.ts) take method, route and schemas from here; the agent's client
 * (agent/runtime/client.ts) takes its routes and types from here. Only this folder may change the wire.
 *
 * The wire is a leaf: this folder imports nothing of the control plane (store, domain, HTTP layer), so the agent
 * bundle carries none of it; the layers test (test/unit/layers.test.ts) holds it to that. Its one neighbour is the
 * task-kind table the start answer's payloads are typed by (type-only).
 */

/** Node ids are the hosts' UUIDs (`kern.hostuuid`); they also name the node's queue. */
export const nodeUuid = { type: 'string', pattern: '^[0-9A-Fa-f]{8}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{4}-[0-9A-Fa-f]{12}$' } as const;

const registerBody = {
  type: 'object',
  properties: {
    id: nodeUuid,
    name: { type: 'string', minLength: 1, maxLength: 255 },
    ip: { type: 'string', maxLength: 64 },
    inventory: inventorySchema,
    agentVersion: { type: 'string', maxLength: 64 },
    heartbeatIntervalS: { type: 'integer', minimum: 1, maximum: 3600 },
    /** the host's SSH host key fingerprints: peers connect to it only when it presents one of them */
    sshHostKeys: { type: 'array', maxItems: 16, items: { type: 'string', pattern: '^SHA256:[A-Za-z0-9+/]{43}$' } },
  },
  required: ['id', 'name', 'ip', 'inventory'],
  additionalProperties: false,
} as const;

const inventoryBody = {
  type: 'object',
  properties: {
    inventory: inventorySchema,
    /**
     * The newest `finishedAt` of the task outcomes the agent had reported (the store's time, from the finish
     * answers) when it began collecting this inventory: what the report describes is at least that recent
     */
    asOf: { type: 'string', pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?Z$' },
  },
  required: ['inventory'],
  additionalProperties: false,
} as const;

const telemetryBody = {
  type: 'object',
  properties: {
    /**
     * oldest first, each with its own time: a batch of the samples taken since the last post while nobody reads
     * the node (one post a minute), one sample while someone does, more after the API was unreachable
     */
    samples: { type: 'array', minItems: 1, maxItems: 360, items: telemetrySampleSchema },
  },
  required: ['samples'],
  additionalProperties: false,
} as const;

/** The answer to register: the node, its queue, and the persisted configuration to re-apply (run through `start` like any task). */
export interface Registered {
  node: NodeView;
  queueUrl: string;
  reapply: Array<{ taskId: number; kind: string; resource: string; payload: unknown }>;
}

/**
 * The answer to a heartbeat: `resent` are the node's queued tasks the sweep sent again; `cancel` are its
 * running tasks an operator cancelled: the agent stops them, undoes what it can and reports `cancelled`.
 */
export interface HeartbeatRecorded {
  nodeId: string;
  lastSeenAt: string;
  resent: number[];
  cancel: number[];
}

export interface StaleTasksInterrupted {
  nodeId: string;
  interrupted: number[];
  /**
   * running tasks an operator asked to cancel before the restart, of kinds the agent can undo from the payload
   * alone: still `running`; the agent undoes each and reports it `cancelled`
   */
  cancelling: PendingCancel[];
}

/** A cancel the previous run of the agent did not get to carry out. */
export interface PendingCancel {
  id: number;
  kind: string;
  attempt: number;
  payload: unknown;
  requestedBy: string;
}

export interface InventoryRecorded {
  nodeId: string;
  changed: boolean;
  inventoryAt: string | null;
}

/** A response `data` type, carried for the compiler only: responses are not validated at run time. */
export interface Responds<T> {
  readonly type?: T;
}
const responds = <T>(): Responds<T> => ({});

/** The path parameter of the task calls: the task's id. */
const taskIdPath = { type: 'object', properties: { id: id32 }, required: ['id'], additionalProperties: false } as const;

/** One call of the contract. */
export interface AgentCall {
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  route: `/api/agent/${string}`;
  /** path parameters, `{name}` in the route */
  path?: JSONSchema;
  /** the JSON body; none when absent */
  body?: JSONSchema;
  data: Responds<unknown>;
}

export const agentContract = {
  register: { method: 'POST', route: '/api/agent/register', body: registerBody, data: responds<Registered>() },
  heartbeat: { method: 'POST', route: '/api/agent/heartbeat', data: responds<HeartbeatRecorded>() },
  interruptStale: { method: 'POST', route: '/api/agent/tasks/interrupt-stale', data: responds<StaleTasksInterrupted>() },
  inventory: { method: 'PUT', route: '/api/agent/inventory', body: inventoryBody, data: responds<InventoryRecorded>() },
  telemetry: { method: 'POST', route: '/api/agent/telemetry', body: telemetryBody, data: responds<TelemetryStored>() },
  start: { method: 'POST', route: '/api/agent/tasks/{id}/start', path: taskIdPath, data: responds<StartAnswer>() },
  progress: { method: 'POST', route: '/api/agent/tasks/{id}/progress', path: taskIdPath, body: progressReportSchema, data: responds<TaskView>() },
  finish: { method: 'POST', route: '/api/agent/tasks/{id}/finish', path: taskIdPath, body: finishReportSchema, data: responds<TaskView>() },
} as const satisfies Record<string, AgentCall>;

type Contract = typeof agentContract;
export type AgentCallName = keyof Contract;
/** The request body of a call, derived from its schema (`undefined` for a call without one). */
export type AgentBody<N extends AgentCallName> = Contract[N] extends { body: infer S extends JSONSchema } ? FromSchema<S> : undefined;
/** The path parameters of a call, derived from its schema. */
export type AgentPath<N extends AgentCallName> = Contract[N] extends { path: infer S extends JSONSchema } ? FromSchema<S> : Record<string, never>;
/** The response `data` of a call. */
export type AgentData<N extends AgentCallName> = Contract[N]['data'] extends Responds<infer T> ? T : never;

export type RegisterBody = AgentBody<'register'>;
export type { FinishReport, ProgressReport } from './reports.ts';
export type { StartAnswer } from './tasks.ts';
