/**
 * npm run seed -- FILE.json: validates a seed file (shared/seed/seed.schema.json) and loads it into the store
 * in one transaction. See shared/seed/README.md.
 */
import { writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { migrateToLatest } from '#store/migrate';
import { loadSeed, readSeedFile, SeedError } from '#shared/seed/load';
import { seedSchema } from '#shared/seed/schema';
import { SEED_SCHEMA_FILE, seedSchemaJson } from '#shared/seed/schema-file';
import { openCliStore, runCli, STORE_HELP, UsageError } from './cli/store.ts';

const HELP = `npm run seed — load a seed file into the store

Usage:
  npm run seed -- FILE.json            validate FILE.json, migrate the store, load it (one transaction)
  npm run seed -- --check FILE.json    only validate; nothing is written
  npm run seed -- --write-schema       rewrite ${SEED_SCHEMA_FILE} from shared/seed/schema.ts

The format is described in shared/seed/README.md and ${SEED_SCHEMA_FILE};
shared/seed/demo.json is a complete example (npm start loads it into an empty store).
Loading is idempotent: items are upserted by their natural keys (nodes by id, templates by key, jobs by
name …), and a job's events are added only while it has none. An invalid file is refused as a whole,
with every problem named by its path (e.g. backupEvents[3].status).

${STORE_HELP}`;

await runCli(async () => {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: { check: { type: 'boolean' }, 'write-schema': { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    });
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) return console.log(HELP);
  if (values['write-schema']) {
    writeFileSync(SEED_SCHEMA_FILE, seedSchemaJson(seedSchema));
    return console.log(`wrote ${SEED_SCHEMA_FILE}`);
  }
  if (positionals.length !== 1) throw new UsageError('name exactly one seed file');
  const file = positionals[0];
  try {
    const seed = readSeedFile(file);
    if (values.check) return console.log(`${file} is a valid seed file`);
    const store = await openCliStore();
    try {
      await migrateToLatest(store.db);
      const summary = await loadSeed(store.db, seed, file);
      const parts = Object.entries(summary)
        .filter(([, n]) => n > 0)
        .map(([k, n]) => `${k} ${n}`);
      console.log(`loaded ${file} into ${store.where}: ${parts.join(', ') || 'nothing to load'}`);
    } finally {
      await store.close();
    }
  } catch (err) {
    if (err instanceof SeedError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
});
