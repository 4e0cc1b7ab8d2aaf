import type { Trigger } from '#shared/trigger';

// The local stack runs the same renewal check in-process (scripts/stack/certificate-renewals.ts), at its own pace; serverless-offline's minutely invocation is switched off there (HM_SCHEDULES_ENABLED=false).
export const trigger = {
  summary: 'Queue the renewal of managed certificates within 30 days of notAfter, and retry failed renewals whose backoff has passed',
  schedule: 'rate(1 hour)',
  timeout: 60,
} as const satisfies Trigger;
