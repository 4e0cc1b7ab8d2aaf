import type { Trigger } from '#shared/trigger';

// The local stack runs the same sweep in-process: serverless-offline does not run schedules.
export const trigger = {
  summary: 'Re-send tasks left queued and interrupt those of silent nodes, for every node (shared/jobs/sweeper.ts)',
  schedule: 'rate(1 minute)',
  timeout: 60,
} as const satisfies Trigger;
