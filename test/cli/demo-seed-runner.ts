/**
 * Loads the demo seed into a brand-new empty store (a PGlite copy, or a scratch database on
 * TEST_DATABASE_URL) through `seedDemoIfEmpty`, twice, and prints what the store then holds as JSON.
 * Run as its own process by test/cli/seed.test.ts: the shared test store is never empty.
 */
import { seedDemoIfEmpty } from '#shared/seed/load';
import { printFromEmptyStore } from './empty-store.ts';

await printFromEmptyStore(async (db) => {
  const first = await seedDemoIfEmpty(db);
  const second = await seedDemoIfEmpty(db);
  const count = async (
    t: 'nodes' | 'cluster_notes' | 'notifications' | 'notification_templates' | 'notification_targets' | 'notification_rules' | 'backup_jobs' | 'backup_events',
  ) =>
    Number(
      (
        await db
          .selectFrom(t)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    first,
    second,
    nodes: await db.selectFrom('nodes').select(['id', 'name', 'ip', 'status']).orderBy('name').execute(),
    notes: await count('cluster_notes'),
    notifications: await count('notifications'),
    activeGlobal: Number(
      (
        await db
          .selectFrom('notifications')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('scope', '=', 'global')
          .where('dismissed_at', 'is', null)
          .executeTakeFirstOrThrow()
      ).n,
    ),
    activeNode: Number(
      (
        await db
          .selectFrom('notifications')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .where('scope', '=', 'node')
          .where('dismissed_at', 'is', null)
          .executeTakeFirstOrThrow()
      ).n,
    ),
    templates: (await db.selectFrom('notification_templates').select('key').orderBy('key').execute()).map((t) => t.key),
    targets: await count('notification_targets'),
    rules: await db
      .selectFrom('notification_rules')
      .select(['kind', (eb) => eb.fn.countAll<number>().as('n'), (eb) => eb.fn.count<number>('deleted_at').as('deleted')])
      .groupBy('kind')
      .orderBy('kind')
      .execute(),
    jobs: await count('backup_jobs'),
    // jobs that run: those with a target (their next slot is due after the load)
    runnable: (
      await db
        .selectFrom('backup_jobs')
        .select(['name', 'target_node_id', 'target_dataset', 'retention', 'next_run_at'])
        .where('target_dataset', '!=', '')
        .orderBy('name')
        .execute()
    ).map(({ next_run_at, ...j }) => ({ ...j, due: next_run_at !== null && next_run_at.getTime() > Date.now() - 1000 })),
    events: await db
      .selectFrom('backup_events')
      .select(['status', (eb) => eb.fn.countAll<number>().as('n')])
      .groupBy('status')
      .orderBy('status')
      .execute(),
    counted: Number(
      (
        await db
          .selectFrom('backup_event_counts')
          .select((eb) => eb.fn.sum<number>('n').as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    ),
  };
});
