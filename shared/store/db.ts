import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '#store/tables';

// BIGINT (count(*), bigserial) as JS numbers: our ids and counts stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

let shared: Kysely<Database> | undefined;

export function databaseUrl(): string {
  const url = process.env.DATABASE_URL;
  if (!url) throw new Error('DATABASE_URL is not set: npm start sets it for the local stack; point it at PostgreSQL otherwise');
  return url;
}

/** A Kysely instance over its own pool. One per process is enough; see `getDb`. */
export function createDb(url = databaseUrl(), max = Number(process.env.HM_DB_POOL_MAX ?? 4)): Kysely<Database> {
  const pool = new pg.Pool({
    connectionString: url,
    max,
    idleTimeoutMillis: 30_000,
    connectionTimeoutMillis: Number(process.env.HM_DB_CONNECT_TIMEOUT_MS ?? 5_000),
  });
  // An idle client losing its server must not crash the process; the next query reports it.
  pool.on('error', () => undefined);
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool }) });
}

/** The process-wide instance, created on first use (warm Lambda containers reuse it). */
export function getDb(): Kysely<Database> {
  shared ??= createDb();
  return shared;
}

export async function closeDb(): Promise<void> {
  await shared?.destroy();
  shared = undefined;
}
