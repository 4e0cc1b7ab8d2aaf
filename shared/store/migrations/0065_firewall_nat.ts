import { sql, type Kysely } from 'kysely';

/**
 * Firewall NAT rules and the network objects they reference, plus the WireGuard clients whose FIB an
 * egress interface routes in. E18 reads them (with the node's reported routing tables) to suggest the
 * static return routes a policy-routed SNAT/BINAT rule needs.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE network_objects (
      id serial PRIMARY KEY,
      name text NOT NULL UNIQUE,
      description text NOT NULL DEFAULT '',
      entries text[] NOT NULL DEFAULT '{}',
      resolutions text[] NOT NULL DEFAULT '{}',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE firewall_nat_rules (
      id serial PRIMARY KEY,
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      name text NOT NULL,
      description text NOT NULL DEFAULT '',
      enabled boolean NOT NULL DEFAULT true,
      type text NOT NULL CHECK (type IN ('snat', 'dnat', 'binat')),
      family text NOT NULL CHECK (family IN ('inet', 'inet6', 'any')),
      source text NOT NULL DEFAULT '',
      source_object_id integer REFERENCES network_objects(id) ON DELETE RESTRICT,
      egress_interfaces text[] NOT NULL DEFAULT '{}',
      policy_routing boolean NOT NULL DEFAULT false,
      translate_to text NOT NULL DEFAULT '',
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (node_id, name)
    );
    CREATE INDEX firewall_nat_rules_object ON firewall_nat_rules (source_object_id);
    CREATE TABLE wireguard_clients (
      id serial PRIMARY KEY,
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      name text NOT NULL,
      interface text NOT NULL,
      fib integer NOT NULL DEFAULT 0 CHECK (fib >= 0 AND fib < 65536),
      UNIQUE (node_id, interface)
    );
  `.execute(db);
}
