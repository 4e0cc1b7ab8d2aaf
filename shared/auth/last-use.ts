import { sql } from 'kysely';
import type { Db } from '#store/tables';

/**
 * Notes that a token was accepted: `api_tokens.last_used_at`, kept to the minute so that a busy token costs
 * one write a minute, not one per request.
 */
export async function touchToken(db: Db, tokenId: number): Promise<void> {
  await db
    .updateTable('api_tokens')
    .set({ last_used_at: sql<Date>`now()` })
    .where('id', '=', tokenId)
    .where((eb) => eb.or([eb('last_used_at', 'is', null), eb('last_used_at', '<', sql<Date>`now() - interval '1 minute'`)]))
    .execute();
}
