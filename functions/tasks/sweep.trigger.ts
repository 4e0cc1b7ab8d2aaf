import type { Trigger } from '#shared/trigger';

// The local stack runs the same sweep in-process, at its own pace; serverless-offline's minutely invocation is switched off there (HM_SCHEDULES_ENABLED=false).
export const trigger = {
  summary: 'Re-send tasks left queued and interrupt those of silent nodes, for every node (shared/jobs/sweeper.ts)',
  schedule: 'rate(1 minute)',
  timeout: 60,
} as const satisfies Trigger;
