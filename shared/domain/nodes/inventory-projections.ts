import type { HostInventory } from '#domain/inventory';
import type { Db } from '#store/tables';
import { applyInventory } from '#domain/pools/apply-inventory';
import { applyVmInventory } from '#domain/vms/projection';
import { applyJailInventory } from '#domain/jails/projection';
import type { Settling } from './settling.ts';

/**
 * Everything that projects a node's reported inventory into tables that requests validate against. The
 * agent endpoints run each inside the transaction that stores the inventory (registration and every changed
 * report). A capability whose section needs a table adds its projection here.
 */
/** `settling`: resources whose reported state may predate a task's change (./settling.ts): their persisted state stays. */
type InventoryProjection = (trx: Db, nodeId: string, inventory: Partial<HostInventory>, settling: Settling) => Promise<void>;

export const inventoryProjections: InventoryProjection[] = [
  applyInventory, // pools, vdevs, free disks, tunables
  async (trx, nodeId, inventory, settling) => void (await applyVmInventory(trx, nodeId, inventory.vms, settling, settling.changed)), // VMs and their MAC objects
  async (trx, nodeId, inventory, settling) => void (await applyJailInventory(trx, nodeId, inventory.jails, settling.changed)), // jails (guests of type jail)
];
