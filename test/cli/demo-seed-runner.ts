/**
 * Loads the demo seed into a brand-new empty store (a PGlite copy, or a scratch database on
 * TEST_DATABASE_URL) through `seedDemoIfEmpty`, twice, and prints what the store then holds as JSON.
 * Run as its own process by test/cli/seed.test.ts: the shared test store is never empty.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '#store/db';
import { migrateToLatest } from '#store/migrate';
import { seedDemoIfEmpty } from '#shared/seed/load';
import { scratchDatabase } from '#scripts/stack/store';

const dir = mkdtempSync(join(tmpdir(), 'hm-demo-'));
const store = process.env.TEST_DATABASE_URL
  ? await scratchDatabase(process.env.TEST_DATABASE_URL)
  : await (await import('#scripts/stack/pglite')).startEmbeddedStore({ dataDir: join(dir, 'pglite') });
const db = createDb(store.url, 2);
try {
  await migrateToLatest(db);
  const first = await seedDemoIfEmpty(db);
  const second = await seedDemoIfEmpty(db);
  const count = async (t: 'nodes' | 'cluster_notes' | 'notifications' | 'notification_templates' | 'notification_targets' | 'notification_rules' | 'backup_jobs' | 'backup_events') =>
    Number((await db.selectFrom(t).select((eb) => eb.fn.countAll<number>().as('n')).executeTakeFirstOrThrow()).n);
  const out = {
    first,
    second,
    nodes: await db.selectFrom('nodes').select(['id', 'name', 'ip', 'status']).orderBy('name').execute(),
    notes: await count('cluster_notes'),
    notifications: await count('notifications'),
    activeGlobal: Number((await db.selectFrom('notifications').select((eb) => eb.fn.countAll<number>().as('n')).where('scope', '=', 'global').where('dismissed_at', 'is', null).executeTakeFirstOrThrow()).n),
    activeNode: Number((await db.selectFrom('notifications').select((eb) => eb.fn.countAll<number>().as('n')).where('scope', '=', 'node').where('dismissed_at', 'is', null).executeTakeFirstOrThrow()).n),
    templates: (await db.selectFrom('notification_templates').select('key').orderBy('key').execute()).map((t) => t.key),
    targets: await count('notification_targets'),
    rules: await db.selectFrom('notification_rules').select(['kind', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.count<number>('deleted_at').as('deleted')]).groupBy('kind').orderBy('kind').execute(),
    jobs: await count('backup_jobs'),
    events: await db.selectFrom('backup_events').select(['status', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('status').orderBy('status').execute(),
    counted: Number((await db.selectFrom('backup_event_counts').select((eb) => eb.fn.sum<number>('n').as('n')).executeTakeFirstOrThrow()).n),
  };
  console.log(JSON.stringify(out));
} finally {
  await db.destroy();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
