import type { Transaction } from 'kysely';
import type { TaskPlan } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';
import type { Database } from '#store/tables';
import { checkReplacement, requirePool } from './devices.ts';

/**
 * E7: validates a device replacement against the node's reported inventory and plans the exclusive
 * `pool.replace-device` task (one active replacement per pool; a second is 409 resource_busy).
 */
export async function planDeviceReplacement(
  trx: Transaction<Database>,
  guid: string,
  oldDevice: string,
  newDevice: string,
): Promise<TaskPlan<'pool.replace-device'>> {
  const pool = await requirePool(trx, guid);
  const devices = await checkReplacement(trx, pool, oldDevice, newDevice);
  return {
    kind: 'pool.replace-device',
    nodeId: pool.nodeId,
    resource: resourceKey.pool(pool.guid),
    payload: { pool: pool.name, guid: pool.guid, old: devices.old, new: devices.new },
  };
}
