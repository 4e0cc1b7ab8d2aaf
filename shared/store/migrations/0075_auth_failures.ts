import { sql, type Kysely } from 'kysely';

/**
 * Failed authentications per source address, counted in fixed windows: one row per source holds when its
 * current window started and how many credentials failed in it. The functions are separate processes, so the
 * count lives in the store, where every function sees the same number.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE auth_failures (
      source text PRIMARY KEY,
      window_started_at timestamptz NOT NULL,
      failures integer NOT NULL CHECK (failures > 0)
    );
    CREATE INDEX auth_failures_window_started_at ON auth_failures (window_started_at);
  `.execute(db);
}
