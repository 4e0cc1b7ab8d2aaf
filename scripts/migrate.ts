/**
 * npm run migrate: applies every pending migration (shared/store/migrations) to the store.
 */
import { migrateToLatest } from '#store/migrate';
import { openCliStore, runCli, STORE_HELP } from './cli/store.ts';

const HELP = `npm run migrate — apply pending migrations to the store

Usage: npm run migrate [-- --help]

Prints the migrations it applied, or that the store is up to date. Run it once per release against
production PostgreSQL; npm start and the test stack migrate by themselves.

${STORE_HELP}`;

await runCli(async () => {
  if (process.argv.slice(2).some((a) => a === '--help' || a === '-h')) {
    console.log(HELP);
    return;
  }
  const store = await openCliStore();
  try {
    // an embedded data dir was already migrated when opened
    const applied = [...store.applied, ...(await migrateToLatest(store.db))];
    console.log(applied.length ? `applied to ${store.where}:\n${applied.map((m) => `  ${m}`).join('\n')}` : `${store.where} is up to date`);
  } finally {
    await store.close();
  }
});
