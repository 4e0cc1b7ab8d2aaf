import type { Trigger } from '#shared/trigger';

// The local stack runs the same pass in-process (scripts/stack/backup-scheduler.ts), at its own pace; serverless-offline's minutely invocation is switched off there (HM_SCHEDULES_ENABLED=false).
export const trigger = {
  summary: 'Queue the backup runs that are due on online runners, one per job (shared/domain/backups/scheduler.ts)',
  schedule: 'rate(1 minute)',
  timeout: 60,
} as const satisfies Trigger;
