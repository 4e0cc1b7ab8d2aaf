import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import type { Kysely } from 'kysely';
import { startEmbeddedStore } from '#scripts/stack/pglite';
import { scratchDatabase } from '#scripts/stack/store';
import { createDb } from '#store/db';
import { migrateToLatest } from '#store/migrate';
import { createToken } from '#shared/auth/tokens';
import type { Database } from '#store/tables';

/** How long one seeding statement may run (BENCH_SEED_TIMEOUT_MS, default 10 min). */
const SEED_TIMEOUT_MS = Number(process.env.BENCH_SEED_TIMEOUT_MS ?? 600_000);

export type StoreKind = 'pglite' | 'postgres';

/** A migrated, empty store for one measurement, with an admin token; `close` removes everything it made. */
export interface BenchStore {
  kind: StoreKind;
  url: string;
  db: Kysely<Database>;
  adminToken: string;
  close(): Promise<void>;
}

/** The PostgreSQL server the bench creates its scratch databases on (BENCH_PG_URL, else the CI default). */
export const postgresServerUrl = () => process.env.BENCH_PG_URL ?? process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';

let reachable: Promise<string | null> | undefined;
/** null when the server answers, else why not (the PostgreSQL rows then say so instead of failing the run). */
export function postgresUnavailable(): Promise<string | null> {
  reachable ??= (async () => {
    const c = new pg.Client({ connectionString: postgresServerUrl(), connectionTimeoutMillis: 2000 });
    try {
      await c.connect();
      await c.query('SELECT 1');
      return null;
    } catch (err) {
      return `PostgreSQL at ${new URL(postgresServerUrl()).host} unreachable (${(err as Error).message}); set BENCH_PG_URL`;
    } finally {
      await c.end().catch(() => undefined);
    }
  })();
  return reachable;
}

export async function openBenchStore(kind: StoreKind, poolMax = 4): Promise<BenchStore> {
  const undo: Array<() => Promise<void>> = [];
  const close = async () => {
    for (const u of undo.reverse()) await u().catch((e) => console.error('bench cleanup:', (e as Error).message));
  };
  try {
    let url: string;
    if (kind === 'pglite') {
      const dir = mkdtempSync(join(tmpdir(), 'hm-bench-'));
      undo.push(async () => rmSync(dir, { recursive: true, force: true }));
      const s = await startEmbeddedStore({ dataDir: join(dir, 'pglite') });
      undo.push(s.close);
      url = s.url;
    } else {
      const s = await scratchDatabase(postgresServerUrl());
      undo.push(s.close);
      url = s.url;
    }
    // seeding (100 000 events, 1 M telemetry rows set-based) is not a request: it gets its own bound, not the
    // 5 s a request's statement has (the handlers under measurement open their own pool with that bound)
    const db = createDb(url, poolMax, { queryTimeoutMs: SEED_TIMEOUT_MS });
    undo.push(() => db.destroy());
    await migrateToLatest(db);
    const { token } = await createToken(db, { name: 'bench admin', role: 'admin' });
    return { kind, url, db, adminToken: token, close };
  } catch (err) {
    await close();
    throw err;
  }
}

/** Opens a store, runs `fn`, always cleans up. */
export async function withStore<T>(kind: StoreKind, fn: (s: BenchStore) => Promise<T>, poolMax?: number): Promise<T> {
  const s = await openBenchStore(kind, poolMax);
  try {
    return await fn(s);
  } finally {
    await s.close();
  }
}
