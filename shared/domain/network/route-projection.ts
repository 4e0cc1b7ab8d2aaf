import { createHash } from 'node:crypto';
import { sql } from 'kysely';
import type { Db } from '#store/tables';
import { ipLibrary } from '#shared/auth/ip-library';
import { routeMath, type AddressFamily, type RouteEntry, type RouteTable } from './routes.ts';

const CHUNK = 1000;

/** The reported tables worth keeping: one per FIB (the first), FIB an integer in 0–65535, routes a list of entries. */
function readableTables(tables: unknown): RouteTable[] {
  if (!Array.isArray(tables)) return [];
  const out = new Map<number, RouteTable>();
  for (const t of tables as Array<Partial<RouteTable> | null>) {
    const fib = t?.fib;
    if (!Number.isInteger(fib) || fib! < 0 || fib! > 65535 || out.has(fib!) || !Array.isArray(t?.routes)) continue;
    const routes = t.routes.filter(
      (r): r is RouteEntry =>
        !!r && (r.family === 'inet' || r.family === 'inet6') && [r.destination, r.gateway, r.flags, r.interface].every((v) => typeof v === 'string'),
    );
    out.set(fib!, { fib: fib!, routes });
  }
  return [...out.values()];
}

const tableHash = (t: RouteTable) => createHash('sha256').update(JSON.stringify(t.routes)).digest('hex');

/**
 * Brings the node's projected routing tables in step with its reported inventory `routes` (one table per
 * FIB): a FIB no longer reported is dropped with its routes, a changed table is rewritten, an unchanged one
 * (same hash) is left alone. Undefined = the inventory has no routes: the node has no tables.
 */
export async function projectRoutes(trx: Db, nodeId: string, tables: RouteTable[] | undefined): Promise<void> {
  const reported = new Map(readableTables(tables).map((t) => [t.fib, { table: t, hash: tableHash(t) }]));
  const stored = await trx.selectFrom('node_route_tables').select(['fib', 'hash']).where('node_id', '=', nodeId).execute();
  const storedHash = new Map(stored.map((s) => [s.fib, s.hash]));
  const stale = stored.filter((s) => reported.get(s.fib)?.hash !== s.hash).map((s) => s.fib);
  if (stale.length) await trx.deleteFrom('node_route_tables').where('node_id', '=', nodeId).where('fib', 'in', stale).execute();
  for (const [fib, { table, hash }] of reported) {
    if (storedHash.get(fib) === hash) continue;
    await trx.insertInto('node_route_tables').values({ node_id: nodeId, fib, hash }).execute();
    // ipaddr.js is loaded here, when a table changed, not at every start of the agent routes
    const { indexRoutes } = routeMath(await ipLibrary());
    const rows = [...indexRoutes(table.routes)].map(([prefix, r]) => ({
      node_id: nodeId,
      fib,
      prefix,
      family: r.family,
      destination: r.destination,
      gateway: r.gateway,
      flags: r.flags,
      interface: r.interface,
    }));
    for (let i = 0; i < rows.length; i += CHUNK)
      await trx
        .insertInto('node_routes')
        .values(rows.slice(i, i + CHUNK))
        .execute();
  }
}

/** Whether the node reported a routing table for `fib`. */
export async function hasRouteTable(db: Db, nodeId: string, fib: number): Promise<boolean> {
  return !!(await db.selectFrom('node_route_tables').select('fib').where('node_id', '=', nodeId).where('fib', '=', fib).executeTakeFirst());
}

/** The node's routes of `fib` and `family` stored under any of `keys` (prefix keys), by key. */
export async function routesByKey(db: Db, nodeId: string, fib: number, family: AddressFamily, keys: string[]): Promise<Map<string, RouteEntry>> {
  if (!keys.length) return new Map();
  const rows = await db
    .selectFrom('node_routes')
    .select(['prefix', 'family', 'destination', 'gateway', 'flags', 'interface'])
    .where('node_id', '=', nodeId)
    .where('fib', '=', fib)
    .where('family', '=', family)
    .where(sql<boolean>`prefix = any(${keys}::text[])`)
    .execute();
  return new Map(rows.map(({ prefix, ...r }) => [prefix, r]));
}
