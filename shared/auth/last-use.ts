import { sql } from 'kysely';
import type { Db } from '#store/tables';

const NOTE_EVERY_MS = 60_000;

/**
 * Notes that a token was accepted: `api_tokens.last_used_at`, kept to the minute so that a busy token costs
 * one write a minute, not one per request. `lastUsedAt` is what the token lookup read: a token noted less
 * than a minute ago costs no statement at all.
 */
export async function touchToken(db: Db, tokenId: number, lastUsedAt: Date | null, now = Date.now()): Promise<void> {
  if (lastUsedAt && now - lastUsedAt.getTime() < NOTE_EVERY_MS) return;
  await db
    .updateTable('api_tokens')
    .set({ last_used_at: sql<Date>`now()` })
    .where('id', '=', tokenId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`)]))
    .execute();
}
