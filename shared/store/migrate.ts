import { Migrator, type Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { migrations } from './migrations/index.ts';

/** Applies every pending migration; throws with the failing migration's name. */
export async function migrateToLatest(db: Kysely<Database>): Promise<string[]> {
  const migrator = new Migrator({ db, provider: { getMigrations: async () => migrations } });
  const { error, results } = await migrator.migrateToLatest();
  const failed = results?.find((r) => r.status === 'Error');
  if (error) throw new Error(`migration ${failed?.migrationName ?? '?'} failed: ${(error as Error).message ?? error}`);
  return (results ?? []).filter((r) => r.status === 'Success').map((r) => r.migrationName);
}
