import { setting } from '#shared/config/read';
import { resolve } from 'node:path';
import type { Kysely } from 'kysely';
import { createDb } from '#store/db';
import { migrateToLatest } from '#store/migrate';
import type { Database } from '#store/tables';
import { readRunningStack } from '../stack/running-stack.ts';

/** How the CLIs (token, seed, migrate) find the store; printed in their --help. */
export const STORE_HELP = `Store:
  DATABASE_URL       the PostgreSQL database to use, e.g. postgres://user:pass@host:5432/hostmgr
  Without DATABASE_URL:
    - if the local stack (npm start) is running from \${HM_LOCAL_DIR:-.local}, its store is used through
      the address it recorded in \${HM_LOCAL_DIR:-.local}/stack.json (whatever HM_PGLITE_PORT it was given)
    - otherwise the embedded store's data directory \${HM_LOCAL_DIR:-.local}/pglite is opened (and
      migrated) directly, holding its lock (pglite.lock) meanwhile; a store another process holds open is
      refused, never opened twice (a second opener corrupts it).`;

export interface CliStore {
  db: Kysely<Database>;
  /** what was opened, for messages */
  where: string;
  /** migrations applied while opening (the embedded data dir is migrated at open, as npm start would) */
  applied: string[];
  close(): Promise<void>;
}

/** The local dir npm start uses (HM_LOCAL_DIR, default .local). */
export const localDir = () => resolve(setting('HM_LOCAL_DIR'));

/** DATABASE_URL, else the running local stack's store, else the embedded store's data dir, opened here under its lock. */
export async function openCliStore(): Promise<CliStore> {
  const url = setting('DATABASE_URL');
  if (url) {
    const db = createDb(url, 1);
    return { db, where: `DATABASE_URL (${new URL(url).host}${new URL(url).pathname})`, applied: [], close: () => db.destroy() };
  }
  const running = readRunningStack(localDir());
  if (running) {
    const db = createDb(running.storeUrl, 1);
    return { db, where: `the running stack's store (${new URL(running.storeUrl).host}, npm start pid ${running.pid})`, applied: [], close: () => db.destroy() };
  }
  const dataDir = resolve(localDir(), 'pglite');
  // loaded only here: PGlite is heavy to import, and most runs talk to a server
  const { startEmbeddedStore } = await import('../stack/pglite.ts');
  // refuses (StoreLockedError) when another process holds the data directory
  const store = await startEmbeddedStore({ dataDir, port: 0 });
  const db = createDb(store.url, 1);
  try {
    return {
      db,
      where: `the embedded store in ${dataDir}`,
      applied: await migrateToLatest(db),
      close: async () => {
        await db.destroy();
        await store.close();
      },
    };
  } catch (err) {
    await db.destroy();
    await store.close();
    throw err;
  }
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
