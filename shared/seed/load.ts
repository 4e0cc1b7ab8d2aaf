import { readFileSync } from 'node:fs';
import type { Kysely } from 'kysely';
import type { Database } from '#store/tables';

// Placeholder signatures; the seed capability fills these in.
export async function seedFromFile(db: Kysely<Database>, file: string): Promise<void> {
  JSON.parse(readFileSync(file, 'utf8'));
  void db;
}
export async function seedDemoIfEmpty(db: Kysely<Database>): Promise<boolean> {
  void db;
  return false;
}
