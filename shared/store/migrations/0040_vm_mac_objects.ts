import { sql, type Kysely } from 'kysely';

/**
 * MAC objects: named MAC addresses that VM interfaces use (cluster-wide, one object per address), and
 * which VM uses which. E10 with `deletemacs` deletes the objects of a purged VM that no other VM uses;
 * a binding disappears with its VM row (cascade), the object itself only when deleted explicitly.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`
    CREATE TABLE vm_mac_objects (
      id serial PRIMARY KEY,
      name text NOT NULL,
      mac text NOT NULL UNIQUE CHECK (mac ~ '^([0-9a-f]{2}:){5}[0-9a-f]{2}$'),
      created_at timestamptz NOT NULL DEFAULT now()
    );
    CREATE TABLE vm_mac_bindings (
      guest_id integer NOT NULL REFERENCES guests(id) ON DELETE CASCADE,
      mac_object_id integer NOT NULL REFERENCES vm_mac_objects(id) ON DELETE CASCADE,
      PRIMARY KEY (guest_id, mac_object_id)
    );
    CREATE INDEX vm_mac_bindings_object ON vm_mac_bindings (mac_object_id);
  `.execute(db);
}
