import type { EndpointInput, EndpointSchema } from '#http/spec';
import { agentContract, type AgentData } from '#shared/agent-api/contract';
import { taskViewSchema } from '#http/responses/task';

/** Method, route and schemas come from the agent contract, which the agent's client shares. */
const { method, route, path, body } = agentContract.finish;

export const schema = {
  summary: 'Agent: the outcome of a task. Idempotent: the same report again changes nothing',
  role: 'agent',
  method,
  route,
  path,
  body,
  responses: { 200: 'task_finished', 404: 'task_not_found', 409: 'task_already_finished' },
  data: taskViewSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
export type Output = AgentData<'finish'>;
