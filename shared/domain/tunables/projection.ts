import type { TunableInventory } from '#domain/inventory';
import type { Db } from '#store/tables';

const CHUNK = 500;

/**
 * Brings the node's tunables in step with the reported list. A host has thousands of sysctls and reports
 * them on every inventory change, so only rows that changed are written. Undefined = not reported: kept.
 */
export async function projectTunables(trx: Db, nodeId: string, tunables: TunableInventory[] | undefined): Promise<void> {
  if (!tunables) return;
  const existing = await trx.selectFrom('tunables').select(['name', 'type', 'value', 'writable', 'description']).where('node_id', '=', nodeId).execute();
  const before = new Map(existing.map((t) => [t.name, t]));
  const reported = new Map(tunables.map((t) => [t.name, t]));
  const changed = [...reported.values()].filter((t) => {
    const old = before.get(t.name);
    return !old || old.type !== t.type || old.value !== t.value || old.writable !== t.writable || old.description !== (t.description ?? '');
  });
  const gone = [...before.keys()].filter((name) => !reported.has(name));
  for (let i = 0; i < gone.length; i += CHUNK) {
    await trx
      .deleteFrom('tunables')
      .where('node_id', '=', nodeId)
      .where('name', 'in', gone.slice(i, i + CHUNK))
      .execute();
  }
  for (let i = 0; i < changed.length; i += CHUNK) {
    const rows = changed.slice(i, i + CHUNK).map((t) => ({
      node_id: nodeId,
      name: t.name,
      type: t.type,
      value: t.value,
      writable: t.writable,
      description: t.description ?? '',
      updated_at: new Date(),
    }));
    await trx
      .insertInto('tunables')
      .values(rows)
      .onConflict((oc) =>
        oc.columns(['node_id', 'name']).doUpdateSet((eb) => ({
          type: eb.ref('excluded.type'),
          value: eb.ref('excluded.value'),
          writable: eb.ref('excluded.writable'),
          description: eb.ref('excluded.description'),
          updated_at: eb.ref('excluded.updated_at'),
        })),
      )
      .execute();
  }
}
