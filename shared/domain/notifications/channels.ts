import type { Kysely } from 'kysely';
import { invalid } from '#shared/errors/domain-errors';
import { CHANNEL_FIELDS, DELIVERY_CHANNELS, type DeliveryChannel } from '#domain/notifications/channel-fields';
import { inTransaction } from '#store/tx';
import type { Database, Db } from '#store/tables';
import { parseJsonObject } from './json-object.ts';

/**
 * Global channel settings (one row per channel); rules switch channels on and may override the destination
 * in their `config` (`to`, `ntfyTopic`, `ntfyPriority`, `webhookUrl`). Secret fields are write-only: the API
 * answers `"set"` or `null` for them, and they reach no log and no audit row. Webhook URLs are secrets: a
 * Discord webhook URL embeds its token in the path, generic webhook URLs often carry one in the query.
 */

/** base URLs shown to operators: a token in them would be shown too, so they take none (query, user-info) */
const SHOWN_URLS = new Set(['server', 'apiUrl']);

export const PUSHOVER_API_URL = 'https://api.pushover.net/1/messages.json';
export const NTFY_SERVER = 'https://ntfy.sh';

type Values = Record<string, string | number | boolean>;
export interface ChannelConfig {
  settings: Values;
  secrets: Record<string, string>;
}

/** A channel as the API shows it: plain settings, then `"set"`/`null` for each secret. */
interface ChannelView {
  channel: DeliveryChannel;
  settings: Record<string, string | number | boolean | null>;
  updatedAt: string | null;
}

/** Every channel's stored configuration (an unset channel: empty). */
export async function loadChannels(db: Db): Promise<Record<DeliveryChannel, ChannelConfig & { updatedAt: Date | null }>> {
  const rows = await db.selectFrom('notification_channels').selectAll().execute();
  const byName = new Map(rows.map((r) => [r.channel, r]));
  return Object.fromEntries(
    DELIVERY_CHANNELS.map((c) => {
      const r = byName.get(c);
      const settings = parseJsonObject(r?.settings);
      const secrets = parseJsonObject(r?.secrets);
      // a field stored before it became secret (the generic webhook's URL) is read, and kept, as one
      for (const k of CHANNEL_FIELDS[c].secret as readonly string[]) {
        if (k in settings) {
          secrets[k] ??= settings[k];
          delete settings[k];
        }
      }
      return [c, { settings, secrets, updatedAt: r?.updated_at ?? null }];
    }),
  ) as Record<DeliveryChannel, ChannelConfig & { updatedAt: Date | null }>;
}

export async function listChannels(db: Db): Promise<ChannelView[]> {
  const all = await loadChannels(db);
  return DELIVERY_CHANNELS.map((channel) => {
    const { settings, secrets, updatedAt } = all[channel];
    const view: ChannelView['settings'] = {};
    for (const k of CHANNEL_FIELDS[channel].plain) view[k] = settings[k] ?? null;
    for (const k of CHANNEL_FIELDS[channel].secret) view[k] = secrets[k] ? 'set' : null;
    return { channel, settings: view, updatedAt: updatedAt ? updatedAt.toISOString() : null };
  });
}

/**
 * A URL the worker may call: http(s) only, so `file:`, `gopher:` and friends are refused; no user-info
 * (`user:pass@`), which would be sent as credentials and shown wherever the URL is; with `shown`, no query
 * either (the URL is answered to operators, so it must not carry a token).
 */
export function checkDeliveryUrl(field: string, value: unknown, shown = false): void {
  if (typeof value !== 'string') return;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw invalid('invalid_url', `${field}: must be an absolute http(s) URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw invalid('invalid_url', `${field}: scheme ${u.protocol} is not allowed; use http or https`);
  if (u.username || u.password)
    throw invalid('invalid_url', `${field}: must not carry user-info (user:password@); put credentials in the channel's secret fields`);
  if (shown && u.search) throw invalid('invalid_url', `${field}: must not carry a query (it is shown to operators); put tokens in the channel's secret fields`);
}

// C0 controls, DEL and C1 controls: in a header value (ntfy's token and priority) or an SMTP command (from, to,
// the login) a CR/LF splits the message it is sent in
// biome-ignore lint/suspicious/noControlCharactersInRegex: refusing control characters is the point
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

/** Every string in `value` (nested objects and arrays included) is free of control characters; 400 naming the field. */
export function checkNoControlCharacters(field: string, value: unknown): void {
  if (typeof value === 'string') {
    if (CONTROL.test(value)) throw invalid('invalid_value', `${field}: must not contain control characters (CR, LF, tab, …)`);
  } else if (Array.isArray(value)) {
    for (const [i, v] of value.entries()) checkNoControlCharacters(`${field}[${i}]`, v);
  } else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) checkNoControlCharacters(`${field}.${k}`, v);
}

const URL_FIELDS = new Set(['server', 'apiUrl', 'url', 'webhookUrl']);

/**
 * Updates channels: per given channel, a given plain field replaces the stored one (`null` clears it); a given
 * secret is replaced (`null` clears it), an omitted one is kept. One transaction. Answers the channels list.
 */
export async function updateChannels(db: Kysely<Database>, patch: Partial<Record<DeliveryChannel, Record<string, unknown>>>): Promise<ChannelView[]> {
  for (const [channel, fields] of Object.entries(patch)) {
    for (const [k, v] of Object.entries(fields ?? {})) {
      checkNoControlCharacters(`body.${channel}.${k}`, v);
      if (URL_FIELDS.has(k)) checkDeliveryUrl(`body.${channel}.${k}`, v, SHOWN_URLS.has(k));
    }
  }
  return inTransaction(db, async (trx) => {
    const all = await loadChannels(trx);
    for (const channel of DELIVERY_CHANNELS) {
      const fields = patch[channel];
      if (!fields) continue;
      const { settings, secrets } = all[channel];
      const secretNames: readonly string[] = CHANNEL_FIELDS[channel].secret;
      for (const [k, v] of Object.entries(fields)) {
        const into: Record<string, unknown> = secretNames.includes(k) ? secrets : settings;
        if (v === null) delete into[k];
        else into[k] = v;
      }
      const row = { settings: JSON.stringify(settings), secrets: JSON.stringify(secrets), updated_at: new Date() };
      await trx
        .insertInto('notification_channels')
        .values({ channel, ...row })
        .onConflict((oc) => oc.column('channel').doUpdateSet(row))
        .execute();
    }
    return listChannels(trx);
  });
}
