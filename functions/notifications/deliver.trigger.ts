import type { Trigger } from '#shared/trigger';

// The local stack runs the same worker in-process (scripts/stack/notify-delivery.ts), at its own pace; serverless-offline's minutely invocation is switched off there (HM_SCHEDULES_ENABLED=false).
export const trigger = {
  summary: 'Send due notification deliveries (the outbox) with retries and backoff (shared/domain/notifications/delivery/worker.ts)',
  schedule: 'rate(1 minute)',
  timeout: 60,
} as const satisfies Trigger;
