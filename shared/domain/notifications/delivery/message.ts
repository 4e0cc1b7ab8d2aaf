import type { DeliveryChannel } from '#shared/jobs/notification-outbox';
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

/** An error that names the host, never the URL: webhook URLs can carry tokens in their path or query. */
export async function postOrThrow(what: string, url: string, init: RequestInit, timeoutMs: number): Promise<void> {
  const host = (() => {
    try {
      return new URL(url).host;
    } catch {
      return 'an invalid URL';
    }
  })();
  let res: Response;
  try {
    res = await fetch(url, { ...init, method: 'POST', redirect: 'error', signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const e = err as Error & { cause?: { code?: string } };
    const why = e.name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : (e.cause?.code ?? e.message);
    throw new Error(`${what} to ${host} failed: ${why}`);
  }
  const text = await res.text().catch(() => '');
  if (!res.ok) throw new Error(`${what} to ${host} answered HTTP ${res.status}${text ? `: ${text.slice(0, 200)}` : ''}`);
}

/** A required setting, or a clear error naming it (the delivery fails and is retried, then marked failing). */
export function need<T>(value: T | undefined | null | '', what: string): T {
  if (value === undefined || value === null || value === '') throw new Error(`${what} is not configured`);
  return value;
}
