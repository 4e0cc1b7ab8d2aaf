import { sql, type Kysely } from 'kysely';

/**
 * The routing tables each node reports (inventory `routes`, one per FIB), projected so E18's longest-prefix
 * match is a few indexed lookups instead of reading and parsing the whole inventory per request:
 * `node_route_tables` says which FIBs the node reported (with a hash of each, so an unchanged table is not
 * rewritten); `node_routes` holds each usable route once by its normalised prefix (`network/len`; the first
 * route of a prefix in netstat's order wins). Nodes that already reported routes are re-projected on their
 * next inventory report: their inventory hash is cleared so that report counts as changed.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE node_route_tables (
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      fib integer NOT NULL CHECK (fib >= 0 AND fib < 65536),
      hash text NOT NULL,
      PRIMARY KEY (node_id, fib)
    );
    CREATE TABLE node_routes (
      node_id text NOT NULL,
      fib integer NOT NULL,
      prefix text NOT NULL,
      family text NOT NULL CHECK (family IN ('inet', 'inet6')),
      destination text NOT NULL,
      gateway text NOT NULL,
      flags text NOT NULL,
      interface text NOT NULL,
      PRIMARY KEY (node_id, fib, prefix),
      FOREIGN KEY (node_id, fib) REFERENCES node_route_tables (node_id, fib) ON DELETE CASCADE
    );
    UPDATE nodes SET inventory_hash = '' WHERE jsonb_typeof(inventory->'routes') = 'array';
  `.execute(db);
}
