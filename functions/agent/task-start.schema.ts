import type { EndpointInput, EndpointSchema } from '#http/spec';
import { agentContract, type AgentData } from '#shared/agent-api/contract';
import { startAnswerSchema } from '#http/responses/agent';

/** Method, route and schemas come from the agent contract, which the agent's client shares. */
const { method, route, path } = agentContract.start;

export const schema = {
  summary:
    'Agent: claim a task before running it; answers the kind and payload to run (the queue message is only a pointer). `run: false` for a task already started or finished, or superseded by a newer one of its resource: ack its message, do not run it',
  role: 'agent',
  method,
  route,
  path,
  responses: { 200: 'task_started', 404: 'task_not_found' },
  data: startAnswerSchema,
} as const satisfies EndpointSchema;

export type Input = EndpointInput<typeof schema>;
export type Output = AgentData<'start'>;
