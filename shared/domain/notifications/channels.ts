import type { Kysely } from 'kysely';
import { invalid } from '#shared/errors/domain-errors';
import { DELIVERY_CHANNELS, type DeliveryChannel } from '#shared/jobs/notification-outbox';
import { inTransaction } from '#store/tx';
import type { Database, Db } from '#store/tables';
import { parseJsonObject } from './json-object.ts';

/**
 * Global channel settings (one row per channel); rules switch channels on and may override the destination
 * in their `config` (`to`, `ntfyTopic`, `ntfyPriority`, `webhookUrl`). Secret fields are write-only: the API
 * answers `"set"` or `null` for them, and they reach no log and no audit row.
 */
const CHANNEL_FIELDS = {
  email: { plain: ['host', 'port', 'secure', 'username', 'from', 'to'], secret: ['password'] },
  ntfy: { plain: ['server', 'topic', 'priority'], secret: ['token'] },
  // a Discord webhook URL embeds its token
  discord: { plain: [], secret: ['webhookUrl'] },
  pushover: { plain: ['apiUrl'], secret: ['userKey', 'appToken'] },
  webhook: { plain: ['url'], secret: ['secret'] },
} as const satisfies Record<DeliveryChannel, { plain: readonly string[]; secret: readonly string[] }>;

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
      return [c, { settings: parseJsonObject(r?.settings), secrets: parseJsonObject(r?.secrets), updatedAt: r?.updated_at ?? null }];
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

/** A URL the worker may call: http(s) only, so `file:`, `gopher:` and friends are refused. */
export function checkDeliveryUrl(field: string, value: unknown): void {
  if (typeof value !== 'string') return;
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    throw invalid('invalid_url', `${field}: must be an absolute http(s) URL`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw invalid('invalid_url', `${field}: scheme ${u.protocol} is not allowed; use http or https`);
}

const URL_FIELDS = new Set(['server', 'apiUrl', 'url', 'webhookUrl']);

/**
 * Updates channels: per given channel, a given plain field replaces the stored one (`null` clears it); a given
 * secret is replaced (`null` clears it), an omitted one is kept. One transaction. Answers the channels list.
 */
export async function updateChannels(db: Kysely<Database>, patch: Partial<Record<DeliveryChannel, Record<string, unknown>>>): Promise<ChannelView[]> {
  for (const [channel, fields] of Object.entries(patch)) {
    for (const [k, v] of Object.entries(fields ?? {})) if (URL_FIELDS.has(k)) checkDeliveryUrl(`body.${channel}.${k}`, v);
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
      await trx.insertInto('notification_channels').values({ channel, ...row }).onConflict((oc) => oc.column('channel').doUpdateSet(row)).execute();
    }
    return listChannels(trx);
  });
}
