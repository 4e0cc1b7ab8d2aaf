import { messageText, need, postOrThrow, type Sender } from './message.ts';

const COLOUR: Record<string, number> = { error: 0xd0312d, warning: 0xe8a317, info: 0x2e86c1 };

/** Discord webhook: POST JSON with `content` and one embed (title, description, colour by severity). */
export const sendDiscord: Sender = async ({ event, config, timeoutMs }) => {
  const url = need(config.secrets.webhookUrl, 'Discord webhook URL');
  const body = JSON.stringify({
    content: event.title.slice(0, 2000),
    embeds: [
      {
        title: event.title.slice(0, 256),
        description: messageText(event).slice(0, 4096),
        color: COLOUR[event.severity] ?? COLOUR.info,
        timestamp: event.createdAt,
      },
    ],
    allowed_mentions: { parse: [] },
  });
  await postOrThrow(url, { headers: { 'content-type': 'application/json' }, body }, timeoutMs);
};
