import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { createDb } from '#store/db';
import { migrateToLatest } from '#store/migrate';
import type { Database } from '#store/tables';
import { scratchDatabase } from '#scripts/stack/store';

/**
 * For runners that need a brand-new empty store (the shared test store never is): a PGlite copy, or a scratch
 * database on TEST_DATABASE_URL, migrated; `fn` gets it and a scratch dir, and what it returns is printed as
 * JSON for the test that started the runner. Everything is removed afterwards.
 */
export async function printFromEmptyStore(fn: (db: Kysely<Database>, dir: string) => Promise<unknown>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'hm-empty-store-'));
  const store = process.env.TEST_DATABASE_URL
    ? await scratchDatabase(process.env.TEST_DATABASE_URL)
    : await (await import('#scripts/stack/pglite')).startEmbeddedStore({ dataDir: join(dir, 'pglite') });
  const db = createDb(store.url, 2);
  try {
    await migrateToLatest(db);
    console.log(JSON.stringify(await fn(db, dir)));
  } finally {
    await db.destroy();
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
