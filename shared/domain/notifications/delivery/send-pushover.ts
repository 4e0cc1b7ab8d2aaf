import { PUSHOVER_API_URL } from '../channels.ts';
import { messageText, need, postOrThrow, type Sender } from './message.ts';

const PRIORITY: Record<string, string> = { error: '1', warning: '0', info: '-1' };

/** Pushover: POST form fields token, user, title, message, priority to the messages API (base URL configurable). */
export const sendPushover: Sender = async ({ event, config, timeoutMs }) => {
  const url = String(config.settings.apiUrl ?? PUSHOVER_API_URL);
  const form = new URLSearchParams({
    token: need(config.secrets.appToken, 'Pushover app token'),
    user: need(config.secrets.userKey, 'Pushover user key'),
    title: event.title.slice(0, 250),
    message: messageText(event).slice(0, 1024),
    priority: PRIORITY[event.severity] ?? '0',
  });
  await postOrThrow(url, { headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form.toString() }, timeoutMs);
};
