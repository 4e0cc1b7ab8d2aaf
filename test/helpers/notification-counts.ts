import { sql } from 'kysely';
import { call, testDb } from './api.ts';

/** The store's notifications at one moment: any raise or dismissal between two readings changes one of these. */
const storeState = async () =>
  (
    await sql<{ active: string; total: string; last: number | null; lastDismissed: Date | null }>`
      select count(*) filter (where dismissed_at is null) as active, count(*) as total, max(id) as last,
             max(dismissed_at) as "lastDismissed"
      from notifications`.execute(testDb())
  ).rows[0];

/**
 * E25's answer beside the store's own count of active notifications, read while nothing changed them. The stack's
 * background work (the offline sweep, the backup scheduler, tasks that end) raises notifications at any moment, so
 * a difference of two E25 answers can be off by one; a reading with the store unchanged on both sides cannot.
 */
export async function activeNotifications(token: string): Promise<{ answered: number; stored: number }> {
  for (let reading = 0; reading < 20; reading++) {
    const before = await storeState();
    const res = await call('GET', '/notifications/count', { token });
    if (JSON.stringify(await storeState()) === JSON.stringify(before)) return { answered: res.body.data.active, stored: Number(before.active) };
  }
  throw new Error('the notifications changed during each of 20 readings of E25');
}
