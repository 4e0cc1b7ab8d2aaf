import type { DeliveryChannel } from '#domain/notifications/channel-fields';
import { allowList } from '#domain/outbound/allow-lists';
import { OutboundFailure } from '#domain/outbound/failure';
import { outboundRequest } from '#domain/outbound/http-request';
import type { ChannelConfig } from '../channels.ts';

/** A stored event as the channels render it. */
export interface EventMessage {
  id: number;
  type: string;
  title: string;
  body: string;
  severity: string;
  nodeId: string | null;
  targetKey: string | null;
  subject: { type?: string; id?: number | string; kind?: string; status?: string };
  createdAt: string;
}

/** What one send needs: the event, the outbox row's id, the channel's settings and the rule's overrides. */
interface SendInput {
  deliveryId: number;
  ruleId: number;
  channel: DeliveryChannel;
  event: EventMessage;
  config: ChannelConfig;
  /** the rule's `config` (destination overrides: `to`, `ntfyTopic`, `ntfyPriority`, `webhookUrl`) */
  overrides: Record<string, unknown>;
  timeoutMs: number;
}

export type Sender = (input: SendInput) => Promise<void>;

/** The plain-text lines every channel shows: what happened, then the facts a person acts on. */
export function messageText(e: EventMessage): string {
  const lines = [e.body || e.title, '', `event: ${e.type}`, `severity: ${e.severity}`];
  if (e.nodeId) lines.push(`node: ${e.nodeId}`);
  if (e.subject.type === 'task') lines.push(`task: ${e.subject.id} (${e.subject.kind}, ${e.subject.status})`);
  else if (e.subject.type) lines.push(`${e.subject.type}: ${e.subject.id}`);
  lines.push(`at: ${e.createdAt}`);
  return lines.join('\n');
}

/** The JSON body of the generic webhook (and what a test reads): the event, with the delivery's id. */
export function eventPayload(deliveryId: number, e: EventMessage) {
  return {
    delivery: deliveryId,
    event: e.type,
    id: e.id,
    title: e.title,
    body: e.body,
    severity: e.severity,
    nodeId: e.nodeId,
    targetKey: e.targetKey,
    subject: e.subject,
    createdAt: e.createdAt,
  };
}

/**
 * POSTs under the outbound-address policy (allow-list `HM_NOTIFY_ALLOW_CIDRS`) and throws OutboundFailure with a
 * fixed reason for anything but a 2xx (`HTTP 503`, `ECONNREFUSED`, `address not allowed: loopback`): the peer's
 * answer is never read into a reason, and the URL — which may carry a token — into nothing.
 */
export async function postOrThrow(url: string, init: { headers: Record<string, string>; body: string }, timeoutMs: number): Promise<void> {
  const res = await outboundRequest({ url, method: 'POST', headers: init.headers, body: init.body, allow: allowList('notify'), timeoutMs, maxBodyBytes: 0 });
  if (res.status < 200 || res.status > 299) throw new OutboundFailure(`HTTP ${res.status}`);
}

/** A required setting, or a fixed reason naming it (the delivery fails and is retried, then marked failing). */
export function need<T>(value: T | undefined | null | '', what: string): T {
  if (value === undefined || value === null || value === '') throw new OutboundFailure(`not configured: ${what}`);
  return value;
}
