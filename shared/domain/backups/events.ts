import { sql, type Kysely, type Selectable } from 'kysely';
import type { BackupEventsTable, Database } from '#store/tables';
import { iso, lastPage, offsetOf, type Page, type PageRequest } from '#store/paging';

/** E12's statuses, and `cancelled` beyond them: a run an operator cancelled (as its task ends). */
export const BACKUP_EVENT_STATUSES = ['queued', 'running', 'success', 'failed', 'interrupted', 'cancelled'] as const;
export type BackupEventStatus = (typeof BACKUP_EVENT_STATUSES)[number];

/** The fields E12 may sort by (default `startedAt`, descending); the query schema refuses any other. */
export const BACKUP_EVENT_SORT_FIELDS = [
  'id',
  'jobId',
  'mode',
  'sourceDataset',
  'targetEndpoint',
  'status',
  'createdAt',
  'startedAt',
  'completedAt',
  'updatedAt',
] as const;
export type BackupEventSortField = (typeof BACKUP_EVENT_SORT_FIELDS)[number];

/** API field → column; each column has a `(column, id)` index (migration 0002). */
const SORT_COLUMN = {
  id: 'id',
  jobId: 'job_id',
  mode: 'mode',
  sourceDataset: 'source_dataset',
  targetEndpoint: 'target_endpoint',
  status: 'status',
  createdAt: 'created_at',
  startedAt: 'started_at',
  completedAt: 'completed_at',
  updatedAt: 'updated_at',
} as const satisfies Record<BackupEventSortField, keyof BackupEventsTable>;

/** Longest accepted search string (bounds the work one request can cause). */
export const SEARCH_MAX = 200;

export interface BackupEvent {
  id: number;
  jobId: number;
  mode: string;
  sourceDataset: string;
  targetEndpoint: string;
  status: BackupEventStatus;
  output: string;
  error: string;
  createdAt: string;
  /** null while the event is queued */
  startedAt: string | null;
  /** null until the event finishes */
  completedAt: string | null;
  updatedAt: string;
}

export const toBackupEvent = (r: Selectable<BackupEventsTable>): BackupEvent => ({
  id: r.id,
  jobId: r.job_id,
  mode: r.mode,
  sourceDataset: r.source_dataset,
  targetEndpoint: r.target_endpoint,
  status: r.status as BackupEventStatus,
  output: r.output,
  error: r.error,
  createdAt: iso(r.created_at)!,
  startedAt: iso(r.started_at),
  completedAt: iso(r.completed_at),
  updatedAt: iso(r.updated_at)!,
});

export interface BackupEventQuery extends PageRequest {
  jobId?: number;
  nodeId?: string;
  search?: string;
  sort: BackupEventSortField;
  dir: 'asc' | 'desc';
}

/** `%`, `_` and the escape character itself are literal in a search. */
const likePattern = (s: string) => `%${s.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/**
 * The search documents (migration 0002: each distinct lower(sourceDataset␟targetEndpoint␟status␟error),
 * ␟ = U+001F, which a search may not contain, so no match spans two fields) that contain `search`.
 */
async function matchingDocs(db: Kysely<Database>, search: string): Promise<number[]> {
  const rows = await db
    .selectFrom('backup_event_search_docs')
    .select('id')
    .where('doc', 'like', sql<string>`lower(${likePattern(search)})`)
    .execute();
  return rows.map((r) => r.id);
}

/**
 * E12: one page of backup events, filtered and sorted. Ties are broken by id in the same direction, so
 * pages are stable. NULL timestamps follow PostgreSQL's default: last ascending, first descending (an
 * event not started yet is "newer" than every started one).
 */
export async function listBackupEvents(db: Kysely<Database>, q: BackupEventQuery): Promise<Page<BackupEvent>> {
  let docs: number[] | undefined;
  if (q.search) {
    // Resolved first, so the planner sees the actual document ids (exact estimates) and a miss costs nothing.
    docs = await matchingDocs(db, q.search);
    if (!docs.length) return { data: [], last_page: 1 };
  }
  let events = db.selectFrom('backup_events');
  // the exact number of matches, from the per (document, node, job) counts (migration 0002)
  let counts = db.selectFrom('backup_event_counts');
  if (q.nodeId !== undefined) {
    events = events.where('node_id', '=', q.nodeId);
    counts = counts.where('node_id', '=', q.nodeId);
  }
  if (q.jobId !== undefined) {
    events = events.where('job_id', '=', q.jobId);
    counts = counts.where('job_id', '=', q.jobId);
  }
  if (docs) {
    events = events.where('search_doc_id', '=', sql<number>`ANY(${docs}::int[])`);
    counts = counts.where('search_doc_id', '=', sql<number>`ANY(${docs}::int[])`);
  }
  const column = SORT_COLUMN[q.sort];
  // Page ids first (an index-only walk of the sort index, which INCLUDEs the filter columns), then the rows.
  const pageIds = events.select('id').orderBy(column, q.dir).orderBy('id', q.dir).limit(q.size).offset(offsetOf(q));
  const [rows, total] = await Promise.all([
    db.selectFrom('backup_events').selectAll().where('id', 'in', pageIds).orderBy(column, q.dir).orderBy('id', q.dir).execute(),
    counts.select(sql<string>`coalesce(sum(n), 0)`.as('n')).executeTakeFirstOrThrow(),
  ]);
  return { data: rows.map(toBackupEvent), last_page: lastPage(Number(total.n), q.size) };
}
