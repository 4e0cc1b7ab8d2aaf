import type { HostInventory } from '#domain/inventory';
import type { Db } from '#store/tables';
import { projectPools } from './projection.ts';
import { projectTunables } from '../tunables/projection.ts';
import { projectGroups } from '../groups/projection.ts';
import { projectRoutes } from '../network/route-projection.ts';
import { reportsVncPassword, withoutVncPasswords } from '../vms/secrets.ts';

/**
 * Projects the parts of a node's reported inventory that requests are validated against (pools with their
 * vdevs and GUIDs, free disks, tunables with types and writability, users and groups, routing tables per FIB) into their tables. The agent endpoints
 * call it inside the transaction that stores `nodes.inventory`, on registration and on every inventory report.
 */
export async function applyInventory(trx: Db, nodeId: string, inventory: Partial<HostInventory>, settling: ReadonlySet<string> = new Set()): Promise<void> {
  await projectPools(trx, nodeId, inventory.pools, inventory.disks);
  await projectTunables(trx, nodeId, inventory.tunables);
  await projectGroups(trx, nodeId, inventory.users, inventory.groups, settling);
  await projectRoutes(trx, nodeId, inventory.routes);
  // a VNC password lives only in the host's domain XML: one an agent reports anyway is not kept
  if (reportsVncPassword(inventory))
    await trx
      .updateTable('nodes')
      .set({ inventory: JSON.stringify(withoutVncPasswords(inventory)) })
      .where('id', '=', nodeId)
      .execute();
}
