import type { EndpointInput, EndpointSchema } from '#http/spec';
import { agentContract, type AgentData } from '#shared/agent-api/contract';
import { taskViewSchema } from '#http/responses/task';

/** Method, route and schemas come from the agent contract, which the agent's client shares. */
const { method, route, path, body } = agentContract.progress;

export const schema = {
  summary: 'Agent: phase, 0–100 progress and optionally more output of a running task',
  role: 'agent',
  audit: 'refusals',
  method,
  route,
  path,
  body,
  responses: { 200: 'task_progress_recorded', 404: 'task_not_found', 409: 'task_not_running' },
  data: taskViewSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
export type Output = AgentData<'progress'>;
