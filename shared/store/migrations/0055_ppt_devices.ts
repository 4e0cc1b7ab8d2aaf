import { sql, type Kysely } from 'kysely';

/**
 * PCI passthrough devices under management (E9): one row per node and PCI address. Only domain 0 is
 * managed; bus/slot/function are kept as numbers (the unique address) and as the `b/s/f` text that
 * `/boot/loader.conf`'s `pptdevs` lists. `old_driver` is the driver the device was attached to when it was
 * taken under management.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE ppt_devices (
      id serial PRIMARY KEY,
      node_id text NOT NULL REFERENCES nodes(id) ON DELETE CASCADE,
      domain integer NOT NULL CHECK (domain = 0),
      bus integer NOT NULL CHECK (bus BETWEEN 0 AND 255),
      slot integer NOT NULL CHECK (slot BETWEEN 0 AND 31),
      function integer NOT NULL CHECK (function BETWEEN 0 AND 7),
      device_id text NOT NULL,
      old_driver text NOT NULL,
      task_id integer,
      requested_by text NOT NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      UNIQUE (node_id, domain, bus, slot, function)
    );
  `.execute(db);
}
