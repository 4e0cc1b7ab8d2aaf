import { cpSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { lockStore } from './store-lock.ts';

export interface EmbeddedStore {
  url: string;
  port: number;
  close(): Promise<void>;
}

/**
 * Opens a PGlite data dir. A brand-new dir costs ≈ 4 s and ≈ 800 MiB to initialise, so a pristine copy is
 * kept under `.local/pglite-template` and copied for every new dir (tests create many).
 */
async function openPglite(dataDir: string): Promise<PGlite> {
  const extensions = { pg_trgm };
  if (!existsSync(join(dataDir, 'PG_VERSION'))) {
    const template = resolve('.local/pglite-template');
    if (!existsSync(join(template, 'PG_VERSION'))) {
      // made aside and renamed into place: the suite starts a stack per jest worker at once, and two stacks
      // initialising one template dir together abort PGlite; the loser of the rename uses the winner's
      const building = `${template}.${process.pid}`;
      rmSync(building, { recursive: true, force: true });
      mkdirSync(building, { recursive: true });
      const t = await PGlite.create(building, { extensions });
      await t.close();
      if (!existsSync(join(template, 'PG_VERSION'))) rmSync(template, { recursive: true, force: true });
      try {
        renameSync(building, template);
      } catch (e) {
        if (!existsSync(join(template, 'PG_VERSION'))) throw e;
        rmSync(building, { recursive: true, force: true });
      }
    }
    mkdirSync(dataDir, { recursive: true });
    cpSync(template, dataDir, { recursive: true });
  }
  return PGlite.create(dataDir, { extensions });
}

/**
 * pglite-socket 0.2.17 queues each wire-protocol message on its own, and only keeps an open transaction's
 * connection exclusive. Outside a transaction, another connection's messages can land between one statement's
 * Parse, Bind, Execute and Sync — and all connections share one session, so its unnamed statement and portal
 * get replaced: a query then returns another query's rows (seen as rows "vanishing" under concurrent agents,
 * functions and tests). Queue the extended-protocol messages of a connection up to the message that makes the
 * server answer (Sync, Flush, a simple Query …) and run them as one unit.
 */
function runStatementsWhole(server: PGLiteSocketServer): void {
  type Enqueue = (handlerId: number, message: Uint8Array, onData: (d: Uint8Array) => void) => Promise<number>;
  const queue = (server as unknown as { queryQueue: { enqueue: Enqueue } }).queryQueue;
  const enqueue = queue.enqueue.bind(queue);
  const held = new Map<number, Uint8Array[]>();
  // Parse, Bind, Describe, Execute, Close: answered only at the next Sync/Flush
  const DEFERRED = new Set(['P', 'B', 'D', 'E', 'C'].map((c) => c.charCodeAt(0)));
  queue.enqueue = (handlerId, message, onData) => {
    if (message.length > 0 && DEFERRED.has(message[0])) {
      const parts = held.get(handlerId) ?? [];
      parts.push(message);
      held.set(handlerId, parts);
      return Promise.resolve(0);
    }
    const parts = held.get(handlerId);
    if (!parts) return enqueue(handlerId, message, onData);
    held.delete(handlerId);
    return enqueue(handlerId, new Uint8Array(Buffer.concat([...parts, message])), onData);
  };
}

/** PGlite served over the PostgreSQL wire protocol, so every process reaches it with plain `pg`. */
export async function startEmbeddedStore(opts: { dataDir: string; port?: number; host?: string }): Promise<EmbeddedStore> {
  // one opener per data directory: a second one corrupts it (StoreLockedError names the holder)
  const release = lockStore(resolve(opts.dataDir));
  try {
    const db = await openPglite(opts.dataDir);
    const server = new PGLiteSocketServer({ db, port: opts.port ?? 0, host: opts.host ?? '127.0.0.1', maxConnections: 200 });
    runStatementsWhole(server);
    await server.start().catch(async (err) => {
      await db.close();
      throw err;
    });
    const port = Number((server as unknown as { port: number }).port);
    return {
      url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres?sslmode=disable`,
      port,
      close: async () => {
        try {
          await server.stop();
          await db.close();
        } finally {
          release();
        }
      },
    };
  } catch (err) {
    release();
    throw err;
  }
}
