import { taskViewSchema } from './task.ts';

/** The answer to an agent's claim of a task (`StartAnswer`, shared/jobs/start.ts). */
export const startAnswerSchema = {
  title: 'TaskStartAnswer',
  type: 'object',
  properties: {
    run: { type: 'boolean' },
    reason: { type: 'string' },
    attempt: { type: 'integer', minimum: 0 },
    task: taskViewSchema,
    /** present when `run`: the task row's kind and payload, and the hosts it may reach over SSH */
    work: {
      type: 'object',
      properties: {
        kind: { type: 'string' },
        payload: {},
        peers: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              nodeId: { type: 'string' },
              address: { type: 'string' },
              hostKeys: { type: 'array', items: { type: 'string' } },
              user: { type: 'string' },
              port: { type: 'integer' },
            },
            required: ['nodeId', 'address', 'hostKeys'],
            additionalProperties: false,
          },
        },
      },
      required: ['kind', 'payload', 'peers'],
      additionalProperties: false,
    },
    /** present when the task waits for the running task of its resource */
    waitFor: {
      type: 'object',
      properties: { taskId: { type: 'integer', minimum: 1 }, resource: { type: 'string' } },
      required: ['taskId', 'resource'],
      additionalProperties: false,
    },
  },
  required: ['run', 'reason', 'attempt', 'task'],
  additionalProperties: false,
} as const;
