import type { Kysely, Selectable } from 'kysely';
import { inTransaction } from '#store/tx';
import type { Database, NotificationsTable } from '#store/tables';
import { iso, lastPage, offsetOf, type Page, type PageRequest } from '#store/paging';

export const NOTIFICATION_SCOPES = ['global', 'node'] as const;
export const NOTIFICATION_SEVERITIES = ['info', 'warning', 'error'] as const;

export interface Notification {
  id: number;
  kind: string;
  title: string;
  body: string;
  severity: string;
  /** `global` notifications are the ones E24 dismisses; `node` ones concern one node */
  scope: string;
  nodeId: string | null;
  createdAt: string;
  dismissedAt: string | null;
}

const toNotification = (r: Selectable<NotificationsTable>): Notification => ({
  id: r.id,
  kind: r.kind,
  title: r.title,
  body: r.body,
  severity: r.severity,
  scope: r.scope,
  nodeId: r.node_id,
  createdAt: iso(r.created_at)!,
  dismissedAt: iso(r.dismissed_at),
});

interface NotificationQuery extends PageRequest {
  scope?: (typeof NOTIFICATION_SCOPES)[number];
  nodeId?: string;
}

/** Active (not dismissed) notifications, newest first. */
export async function listActiveNotifications(db: Kysely<Database>, q: NotificationQuery): Promise<Page<Notification>> {
  let base = db.selectFrom('notifications').where('dismissed_at', 'is', null);
  if (q.scope) base = base.where('scope', '=', q.scope);
  if (q.nodeId !== undefined) base = base.where('node_id', '=', q.nodeId);
  const [rows, total] = await Promise.all([
    base.selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(q.size).offset(offsetOf(q)).execute(),
    base.select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow(),
  ]);
  return { data: rows.map(toNotification), last_page: lastPage(Number(total.n), q.size) };
}

/** E24: dismisses every active global notification (node-scoped ones stay); returns how many. */
export async function dismissAllGlobal(db: Kysely<Database>): Promise<number> {
  const res = await inTransaction(db, (trx) =>
    trx.updateTable('notifications').set({ dismissed_at: new Date() }).where('scope', '=', 'global').where('dismissed_at', 'is', null).executeTakeFirst(),
  );
  return Number(res.numUpdatedRows);
}
