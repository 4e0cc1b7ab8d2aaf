import { setting } from '#shared/config/read';
import { connect } from 'node:net';
import { resolve } from 'node:path';
import type { Kysely } from 'kysely';
import { createDb } from '#store/db';
import { migrateToLatest } from '#store/migrate';
import type { Database } from '#store/tables';

/** How the CLIs (token, seed, migrate) find the store; printed in their --help. */
export const STORE_HELP = `Store:
  DATABASE_URL       the PostgreSQL database to use, e.g. postgres://user:pass@host:5432/hostmgr
  Without DATABASE_URL:
    - if the local stack (npm start) is running, its embedded store on
      127.0.0.1:\${HM_PGLITE_PORT:-5433} is used, i.e.
      DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5433/postgres
    - otherwise the embedded store's data directory .local/pglite is opened (and migrated) directly;
      do not start npm start while the command runs.`;

export interface CliStore {
  db: Kysely<Database>;
  /** what was opened, for messages */
  where: string;
  /** migrations applied while opening (the embedded data dir is migrated at open, as npm start would) */
  applied: string[];
  close(): Promise<void>;
}

const listening = (port: number, host = '127.0.0.1') =>
  new Promise<boolean>((res) => {
    const s = connect({ port, host });
    s.once('connect', () => (s.destroy(), res(true)));
    s.once('error', () => res(false));
    s.setTimeout(500, () => (s.destroy(), res(false)));
  });

/** DATABASE_URL, else the running local stack's store, else the embedded store's data dir, opened here. */
export async function openCliStore(): Promise<CliStore> {
  const url = setting('DATABASE_URL');
  if (url) {
    const db = createDb(url, 1);
    return { db, where: `DATABASE_URL (${new URL(url).host}${new URL(url).pathname})`, applied: [], close: () => db.destroy() };
  }
  const port = setting('HM_PGLITE_PORT');
  if (await listening(port)) {
    const db = createDb(`postgres://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`, 1);
    return { db, where: `the local stack's store on 127.0.0.1:${port}`, applied: [], close: () => db.destroy() };
  }
  const dataDir = resolve('.local/pglite');
  // loaded only here: PGlite is heavy to import, and most runs talk to a server
  const { startEmbeddedStore } = await import('../stack/pglite.ts');
  const store = await startEmbeddedStore({ dataDir, port: 0 });
  const db = createDb(store.url, 1);
  return {
    db,
    where: `the embedded store in ${dataDir}`,
    applied: await migrateToLatest(db),
    close: async () => {
      await db.destroy();
      await store.close();
    },
  };
}

/** Runs a CLI body: store errors and usage errors become one line on stderr and exit code 1 (2 for usage). */
export class UsageError extends Error {}

export async function runCli(body: () => Promise<void>): Promise<void> {
  try {
    await body();
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`error: ${err.message}\n(see --help)`);
      process.exit(2);
    }
    const e = err as { message?: string; code?: string };
    // 42P01 undefined_table: a store nobody has migrated yet
    const hint = e.code === '42P01' ? ' — the store is not migrated yet: run npm run migrate first' : '';
    console.error(`error: ${e.message ?? String(err)}${hint}`);
    process.exit(1);
  }
}
