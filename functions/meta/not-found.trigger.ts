import type { Trigger } from '#shared/trigger';

export const trigger = {
  summary: "Any other route: a 404 in the envelope instead of the gateway's own body",
  route: '$default',
} as const satisfies Trigger;
