import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync, readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { migrations } from '../../shared/store/migrations/index.ts';

export interface EmbeddedStore {
  url: string;
  port: number;
  close(): Promise<void>;
}

const migrationsKey = () => createHash('sha256').update(Object.keys(migrations).join(',')).digest('hex').slice(0, 12);

/**
 * Opens a PGlite data dir. A brand-new dir costs ≈ 4 s and ≈ 800 MiB to initialise, so a pristine copy is
 * kept under `.local/pglite-template` and copied for every new dir (tests create many).
 */
async function openPglite(dataDir: string): Promise<PGlite> {
  const extensions = { pg_trgm };
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    const template = resolve('.local/pglite-template');
    if (!existsSync(join(template, 'PG_VERSION'))) {
      rmSync(template, { recursive: true, force: true });
      mkdirSync(template, { recursive: true });
      const t = await PGlite.create(template, { extensions });
      await t.close();
    }
    mkdirSync(dataDir, { recursive: true });
    cpSync(template, dataDir, { recursive: true });
  }
  return PGlite.create(dataDir, { extensions });
}

/** PGlite served over the PostgreSQL wire protocol, so every process reaches it with plain `pg`. */
export async function startEmbeddedStore(opts: { dataDir: string; port?: number; host?: string }): Promise<EmbeddedStore> {
  const db = await openPglite(opts.dataDir);
  const server = new PGLiteSocketServer({ db, port: opts.port ?? 0, host: opts.host ?? '127.0.0.1', maxConnections: 200 });
  await server.start();
  const port = Number((server as unknown as { port: number }).port);
  writeFileSync(join(opts.dataDir, 'migrations.key'), migrationsKey());
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
    port,
    close: async () => {
      await server.stop();
      await db.close();
    },
  };
}

export const dataDirMigrationsKey = (dataDir: string) => (existsSync(join(dataDir, 'migrations.key')) ? readFileSync(join(dataDir, 'migrations.key'), 'utf8') : '');
