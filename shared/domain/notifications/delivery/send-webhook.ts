import { eventPayload, need, postOrThrow, type Sender } from './message.ts';
import { signBody } from './signature.ts';

/**
 * Generic webhook: POST JSON; `X-Hostmgr-Event` (the event type), `X-Hostmgr-Delivery` (the outbox row id,
 * the same on every retry so receivers can de-duplicate) and, when a secret is set,
 * `X-Hostmgr-Signature-256: sha256=<hex HMAC-SHA256 of the raw body>`.
 */
export const sendWebhook: Sender = async ({ deliveryId, event, config, overrides, timeoutMs }) => {
  const url = need((overrides.webhookUrl as string | undefined) ?? config.secrets.url, 'webhook channel URL');
  const raw = JSON.stringify(eventPayload(deliveryId, event));
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'hostmgr-notify',
    'x-hostmgr-event': event.type,
    'x-hostmgr-delivery': String(deliveryId),
  };
  if (config.secrets.secret) headers['x-hostmgr-signature-256'] = signBody(config.secrets.secret, raw);
  await postOrThrow(url, { headers, body: raw }, timeoutMs);
};
