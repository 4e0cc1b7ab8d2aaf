import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import type { Database } from '#store/tables';
import { setting } from '#shared/config/read';
import { resolveDatabaseUrl } from './database-url.ts';

// BIGINT (count(*), bigserial) as JS numbers: our ids and counts stay far below 2^53.
pg.types.setTypeParser(20, (v) => Number(v));

let shared: Kysely<Database> | undefined;

const TIMED_OUT = Symbol('hm.queryTimedOut');
type TimedClient = pg.PoolClient & { [TIMED_OUT]?: boolean };

/** The message pg gives a query that got no answer within `query_timeout` (mapped to 503 in tx.ts). */
const QUERY_TIMEOUT_MESSAGE = 'Query read timeout';

/** How long one statement may wait for the store before the request fails with 503 (HM_DB_QUERY_TIMEOUT_MS). */
const queryTimeoutMs = () => setting('HM_DB_QUERY_TIMEOUT_MS');

/**
 * A Kysely instance over its own pool. One per process is enough; see `getDb`.
 *
 * Every statement is bounded on the client side (pg's `query_timeout`), which works on PostgreSQL and on
 * PGlite alike: a hung or frozen store fails the request with 503 instead of holding it for the whole Lambda
 * timeout. A connection whose statement timed out is in an unknown protocol state: it refuses further
 * statements at once (so the ROLLBACK that follows does not wait a second time) and is destroyed on release.
 * `opts.queryTimeoutMs` overrides the bound for work that is not a request (bulk seeding, maintenance scripts).
 */
export function createDb(url?: string, max = setting('HM_DB_POOL_MAX'), opts: { queryTimeoutMs?: number } = {}): Kysely<Database> {
  // without a URL: resolved at the first connection (DATABASE_URL, or the SSM parameter a deployed function reads)
  const makePool = async () => {
    const pool = new pg.Pool({
      connectionString: url ?? (await resolveDatabaseUrl()),
      max,
      idleTimeoutMillis: setting('HM_DB_IDLE_TIMEOUT_MS'),
      connectionTimeoutMillis: setting('HM_DB_CONNECT_TIMEOUT_MS'),
      query_timeout: opts.queryTimeoutMs ?? queryTimeoutMs(),
    });
    // An idle client losing its server must not crash the process; the next query reports it.
    pool.on('error', () => undefined);
    pool.on('connect', (client: TimedClient) => {
      const query = client.query.bind(client) as (...args: unknown[]) => unknown;
      client.query = ((...args: unknown[]) => {
        if (client[TIMED_OUT]) return Promise.reject(new Error(`${QUERY_TIMEOUT_MESSAGE}: the connection was abandoned`));
        const result = query(...args);
        if (result instanceof Promise) result.catch((e: Error) => void (e?.message === QUERY_TIMEOUT_MESSAGE && (client[TIMED_OUT] = true)));
        return result;
      }) as typeof client.query;
    });
    return {
      connect: async () => {
        const client = (await pool.connect()) as TimedClient;
        const release = client.release.bind(client);
        client.release = (err?: Error | boolean) => release(err || (client[TIMED_OUT] ? new Error('query timed out; connection discarded') : undefined));
        return client;
      },
      end: () => pool.end(),
      options: pool.options,
    };
  };
  return new Kysely<Database>({ dialect: new PostgresDialect({ pool: makePool }) });
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
