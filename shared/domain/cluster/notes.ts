import type { Kysely, Selectable } from 'kysely';
import { inTransaction } from '#store/tx';
import type { ClusterNotesTable, Database } from '#store/tables';
import { iso, lastPage, offsetOf, requireAllFound, type Page, type PageRequest } from '#store/paging';

export const NOTE_TITLE_MAX = 200;
export const NOTE_CONTENT_MAX = 65536;

interface ClusterNote {
  id: number;
  title: string;
  content: string;
  createdAt: string;
  updatedAt: string;
}

const toNote = (r: Selectable<ClusterNotesTable>): ClusterNote => ({
  id: r.id,
  title: r.title,
  content: r.content,
  createdAt: iso(r.created_at)!,
  updatedAt: iso(r.updated_at)!,
});

/** Newest first. */
export async function listNotes(db: Kysely<Database>, req: PageRequest): Promise<Page<ClusterNote>> {
  const [rows, total] = await Promise.all([
    db.selectFrom('cluster_notes').selectAll().orderBy('created_at', 'desc').orderBy('id', 'desc').limit(req.size).offset(offsetOf(req)).execute(),
    db
      .selectFrom('cluster_notes')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow(),
  ]);
  return { data: rows.map(toNote), last_page: lastPage(Number(total.n), req.size) };
}

export async function createNote(db: Kysely<Database>, note: { title: string; content?: string }): Promise<ClusterNote> {
  const row = await inTransaction(db, (trx) =>
    trx
      .insertInto('cluster_notes')
      .values({ title: note.title, content: note.content ?? '' })
      .returningAll()
      .executeTakeFirstOrThrow(),
  );
  return toNote(row);
}

/**
 * E21: deletes exactly `ids`, all or nothing. Existence is checked inside the same serializable transaction
 * as the delete, so a concurrent delete of one of them makes this one fail (404 or 409), never half-apply.
 */
export async function bulkDeleteNotes(db: Kysely<Database>, ids: number[]): Promise<number[]> {
  return inTransaction(db, async (trx) => {
    const found = await trx.selectFrom('cluster_notes').select('id').where('id', 'in', ids).execute();
    requireAllFound(
      ids,
      found.map((r) => r.id),
      'cluster_note_not_found',
      'cluster note',
    );
    await trx.deleteFrom('cluster_notes').where('id', 'in', ids).execute();
    return ids;
  });
}
