import pg from 'pg';
import { randomBytes } from 'node:crypto';
import { startEmbeddedStore } from './pglite.ts';

export interface StoreHandle {
  url: string;
  kind: 'pglite' | 'postgres';
  close(): Promise<void>;
}

/** The store: PostgreSQL at `DATABASE_URL` when given, else PGlite (embedded Postgres) under `dataDir`. */
export async function openStore(opts: { databaseUrl?: string; dataDir: string; port?: number }): Promise<StoreHandle> {
  if (opts.databaseUrl) return { url: opts.databaseUrl, kind: 'postgres', close: async () => undefined };
  const s = await startEmbeddedStore({ dataDir: opts.dataDir, port: opts.port });
  return { url: s.url, kind: 'pglite', close: s.close };
}

/** A fresh, empty database on a real PostgreSQL server (tests), dropped on close. */
export async function scratchDatabase(serverUrl: string): Promise<StoreHandle> {
  const name = `hm_test_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const u = new URL(serverUrl);
  u.pathname = `/${name}`;
  return {
    url: u.toString(),
    kind: 'postgres',
    close: async () => {
      const c = new pg.Client({ connectionString: serverUrl });
      await c.connect();
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await c.end();
    },
  };
}
