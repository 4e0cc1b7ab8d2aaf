import type { Kysely } from 'kysely';
import { notFound } from '#shared/errors/domain-errors';
import { inTransaction } from '#store/tx';
import type { Database } from '#store/tables';
import { iso } from '#store/paging';

export interface Dismissed {
  id: number;
  /** when it was dismissed: now, or the first dismissal's time when it already was (dismissing is idempotent) */
  dismissedAt: string;
}

/**
 * Dismisses one notification, of either scope (a node-scoped one too: E24 leaves those, the console's bell lets
 * an operator clear them one by one). Dismissing a dismissed one keeps its first time; an unknown id is 404.
 */
export async function dismissNotification(db: Kysely<Database>, id: number): Promise<Dismissed> {
  return inTransaction(db, async (trx) => {
    const row =
      (await trx
        .updateTable('notifications')
        .set({ dismissed_at: new Date() })
        .where('id', '=', id)
        .where('dismissed_at', 'is', null)
        .returning(['id', 'dismissed_at'])
        .executeTakeFirst()) ?? (await trx.selectFrom('notifications').select(['id', 'dismissed_at']).where('id', '=', id).executeTakeFirst());
    if (!row) throw notFound('notification_not_found', `no notification ${id}`);
    return { id: row.id, dismissedAt: iso(row.dismissed_at)! };
  });
}
