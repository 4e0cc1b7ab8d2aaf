import { NTFY_SERVER } from '../channels.ts';
import { messageText, need, postOrThrow, type Sender } from './message.ts';

const PRIORITY: Record<string, string> = { error: 'high', warning: 'default', info: 'low' };
const TAGS: Record<string, string> = { error: 'rotating_light', warning: 'warning', info: 'information_source' };

/** ntfy: POST <server>/<topic>, the message as the body, `Title`/`Priority`/`Tags` headers, bearer token if set. */
export const sendNtfy: Sender = async ({ event, config, overrides, timeoutMs }) => {
  const server = String(config.settings.server ?? NTFY_SERVER).replace(/\/+$/, '');
  const topic = need((overrides.ntfyTopic as string | undefined) ?? (config.settings.topic as string | undefined), 'ntfy topic');
  const headers: Record<string, string> = {
    'content-type': 'text/plain; charset=utf-8',
    // HTTP header values are Latin-1: keep the title ASCII-safe
    title: event.title.replace(/[^\x20-\x7e]/g, '?'),
    priority: String(overrides.ntfyPriority ?? config.settings.priority ?? PRIORITY[event.severity] ?? 'default'),
    tags: TAGS[event.severity] ?? 'bell',
  };
  if (config.secrets.token) headers.authorization = `Bearer ${config.secrets.token}`;
  await postOrThrow(`${server}/${encodeURIComponent(topic)}`, { headers, body: messageText(event) }, timeoutMs);
};
