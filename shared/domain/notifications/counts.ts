import type { Kysely } from 'kysely';
import type { Database } from '#store/tables';

/** E25: notifications not yet dismissed. */
export async function countActive(db: Kysely<Database>): Promise<number> {
  const row = await db
    .selectFrom('notifications')
    .select((eb) => eb.fn.countAll<number>().as('n'))
    .where('dismissed_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}
