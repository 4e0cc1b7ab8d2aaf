import type { HostInventory } from '#domain/inventory';
import type { TaskRow, Db } from '#store/tables';
import { applyVmInventory } from './projection.ts';


/**
 * What the store learns from a VM task's outcome (registered in shared/domain/task-outcomes.ts).
 *
 * A task that failed on the host (the agent found the VM running after all, or still defined when asked to
 * purge it) changed nothing there, so the host's last report is still the truth: the node's VMs are
 * projected again from it. This brings back a registration whose purge the host refused and drops options
 * that were persisted but never applied (the agent reports only an inventory that changed, so without this
 * the store would keep them until the host changed for another reason).
 *
 * (Secrets in the payload are removed by shared/jobs/secrets.ts when any task ends.)
 */
export async function applyVmTaskOutcome(trx: Db, task: TaskRow): Promise<void> {
  if (!task.kind.startsWith('vm.')) return;
  if (task.status !== 'failed') return;
  const node = await trx.selectFrom('nodes').select('inventory').where('id', '=', task.node_id).executeTakeFirst();
  const inventory = node?.inventory as Partial<HostInventory> | undefined;
  await applyVmInventory(trx, task.node_id, inventory?.vms);
}
