import type { PowerAnswer } from '#domain/power/power';
import { describes } from './same.ts';

/** A power request's answer (jail or VM): 202 with the queued task, or 200 when the guest was already so. */
export const powerAnswerSchema = describes<PowerAnswer>()({
  title: 'GuestPowerAnswer',
  type: 'object',
  properties: {
    guestId: { type: 'integer', minimum: 1 },
    action: { type: 'string' },
    /** `queued`: a task does it (202, `Location: /api/tasks/{id}`); `unchanged`: already so, no task (200) */
    outcome: { type: 'string', enum: ['queued', 'unchanged'] },
    /** the state the store holds when answering */
    state: { type: 'string' },
    taskId: { type: ['integer', 'null'], minimum: 1 },
  },
  required: ['guestId', 'action', 'outcome', 'state', 'taskId'],
  additionalProperties: false,
} as const);
