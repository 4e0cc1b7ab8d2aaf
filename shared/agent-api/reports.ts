import type { FromSchema } from 'json-schema-to-ts';
import { id32 } from './ids.ts';

/**
 * What an agent reports about a task it runs, declared once: the endpoints validate these schemas, the
 * lifecycle (shared/jobs/lifecycle.ts) records the derived types, and the agent sends and spools the same types.
 */

/**
 * Output kept per task: the tail, so a chatty command cannot grow a row without bound. The agent keeps the
 * same tail of what it has not reported yet, and a progress report carries at most that much.
 */
export const OUTPUT_TAIL_CHARS = 64 * 1024;

/** The attempt a report belongs to (from the start answer): a stale attempt's report is refused. */
export const attempt = id32;

export const progressReportSchema = {
  type: 'object',
  properties: {
    attempt,
    phase: { type: 'string', maxLength: 200 },
    progress: { type: 'integer', minimum: 0, maximum: 100 },
    output: { type: 'string', maxLength: OUTPUT_TAIL_CHARS },
  },
  required: ['attempt', 'phase', 'progress'],
  additionalProperties: false,
} as const;

export const finishReportSchema = {
  type: 'object',
  properties: {
    attempt,
    /** `cancelled` only for a task whose cancellation was asked for (the job stopped, and undid what it could) */
    status: { type: 'string', enum: ['success', 'failed', 'cancelled'] },
    error: { type: 'string', maxLength: 65536 },
    output: { type: 'string', maxLength: 262144 },
    /** the job's JSON result: checked against its kind's result schema (./kinds.ts) when recorded, stored on the task */
    result: {},
  },
  required: ['attempt', 'status'],
  additionalProperties: false,
} as const;

export type ProgressReport = FromSchema<typeof progressReportSchema>;
export type FinishReport = FromSchema<typeof finishReportSchema>;
