import { sql, type Kysely } from 'kysely';
import type { Database } from '#store/tables';

/** Rows each fill of the scratch copy adds (BENCH_ROW_BYTES_ROWS, read when measuring): at ≈ 500 B a row, ≈ 600 heap pages. */
const fillRows = () => Number(process.env.BENCH_ROW_BYTES_ROWS ?? 10_000);

export interface RowBytes {
  /** on-disk bytes per stored row: heap, every index, TOAST and the maps, as the second fill grew them */
  bytes: number;
  /** the table's own rows the copies were made of */
  sourceRows: number;
  /** rows the measured (second) fill added */
  measuredRows: number;
}

const ident = (name: string) => sql.id(name);

/**
 * Bytes a table needs per stored row, measured by growth rather than divided out of a small table: a table of
 * a few rows is mostly fixed pages (a heap page for a few rows, two pages per index, the free-space and
 * visibility maps), so pg_total_relation_size / rows on a short run said 10 240 B a row where 528 B was right.
 *
 * Method: a scratch copy of the table (`LIKE … INCLUDING ALL EXCLUDING IDENTITY`: the same columns, defaults,
 * constraints and indexes; autovacuum off) is filled twice with copies of the table's own rows, at least
 * BENCH_ROW_BYTES_ROWS rows each time, appended in id order as the ingest appends them (ids and times shifted per copy,
 * so unique indexes stay unique; a bigint and a timestamptz take the same bytes whatever their value). The
 * first fill absorbs the fixed part (first pages, index metapages and roots, the maps); the growth of
 * pg_total_relation_size over the second fill, divided by the rows it added, is the figure — hundreds of
 * pages, so a page's granularity is under 1 %. Freshly appended pages: no dead rows from updates or retention
 * (which autovacuum makes reusable). Works the same on PostgreSQL and PGlite. Null when the table has no rows.
 */
export async function measureRowBytes(db: Kysely<Database>, table: string): Promise<RowBytes | null> {
  const sourceRows = Number((await sql<{ n: string }>`SELECT count(*)::bigint AS n FROM ${ident(table)}`.execute(db)).rows[0].n);
  if (sourceRows === 0) return null;
  const cols = (
    await sql<{ name: string }>`SELECT column_name AS name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = ${table} ORDER BY ordinal_position`.execute(db)
  ).rows.map((r) => r.name);
  const scratch = `bench_row_bytes_${table}`;
  const shifted = sql.join(
    cols.map((c) => (c === 'id' ? sql`s.id + g::bigint * 1000000000000` : c === 'time' ? sql`s.time + make_interval(days => 400 * g)` : sql`s.${ident(c)}`)),
  );
  const size = async () => Number((await sql<{ n: string }>`SELECT pg_total_relation_size(${scratch}::regclass)::bigint AS n`.execute(db)).rows[0].n);
  const copies = Math.ceil(fillRows() / sourceRows);
  const fill = (from: number) =>
    sql`INSERT INTO ${ident(scratch)} (${sql.join(cols.map(ident))})
      SELECT ${shifted} FROM generate_series(${from}::int, ${from + copies - 1}::int) AS g, ${ident(table)} AS s ORDER BY g, s.id`.execute(db);
  await sql`DROP TABLE IF EXISTS ${ident(scratch)}`.execute(db);
  await sql`CREATE TABLE ${ident(scratch)} (LIKE ${ident(table)} INCLUDING ALL EXCLUDING IDENTITY) WITH (autovacuum_enabled = false)`.execute(db);
  try {
    await fill(1);
    const before = await size();
    await fill(1 + copies);
    const grown = (await size()) - before;
    const measuredRows = copies * sourceRows;
    return { bytes: grown / measuredRows, sourceRows, measuredRows };
  } finally {
    await sql`DROP TABLE IF EXISTS ${ident(scratch)}`.execute(db);
  }
}

/** The dashboard telemetry tables: raw samples and their roll-ups (one row per bucket). */
export const TELEMETRY_TABLES = ['pool_telemetry', 'arc_telemetry', 'pool_telemetry_rollups', 'arc_telemetry_rollups'] as const;
export type TelemetryTable = (typeof TELEMETRY_TABLES)[number];

/** Each telemetry table's measured bytes per row (null: the table had no rows to copy). */
export async function telemetryRowBytes(db: Kysely<Database>): Promise<Map<TelemetryTable, RowBytes | null>> {
  const out = new Map<TelemetryTable, RowBytes | null>();
  for (const t of TELEMETRY_TABLES) out.set(t, await measureRowBytes(db, t));
  return out;
}
