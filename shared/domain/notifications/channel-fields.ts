/**
 * The channels a rule can deliver through besides the UI list, and each one's settings: plain ones the API shows,
 * secret ones it takes but never gives back (it answers `"set"` or `null`). The web console builds its channel
 * forms from this table too, so it imports nothing: it is bundled for browsers as is.
 */
export const DELIVERY_CHANNELS = ['email', 'ntfy', 'discord', 'pushover', 'webhook'] as const;
export type DeliveryChannel = (typeof DELIVERY_CHANNELS)[number];

export const CHANNEL_FIELDS = {
  email: { plain: ['host', 'port', 'secure', 'username', 'from', 'to'], secret: ['password'] },
  ntfy: { plain: ['server', 'topic', 'priority'], secret: ['token'] },
  discord: { plain: [], secret: ['webhookUrl'] },
  pushover: { plain: ['apiUrl'], secret: ['userKey', 'appToken'] },
  webhook: { plain: [], secret: ['url', 'secret'] },
} as const satisfies Record<DeliveryChannel, { plain: readonly string[]; secret: readonly string[] }>;
