import { sql, type Transaction } from 'kysely';
import { conflict, notFound } from '#shared/errors/domain-errors';
import type { Enqueue } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';
import type { Database } from '#store/tables';
import type { DatasetInventory } from '#domain/inventory';
import type { VmInventory } from '#shared/domain/vms/types';
import { requireCapability } from '#domain/nodes/capabilities';
import { nodeIscsiConfig } from './config.ts';

/** The VM whose disks or registration datasets include `zvol` (itself or a dataset above it), if any. */
function vmBackedBy(vms: readonly VmInventory[], zvol: string): VmInventory | undefined {
  return vms.find((v) => (v.datasets ?? []).some((d) => d === zvol || zvol.startsWith(`${d}/`)));
}

/** E13's record: the LUN as persisted, and the task installing the regenerated configuration. */
interface LunView {
  id: number;
  targetId: number;
  targetName: string;
  nodeId: string;
  lunNumber: number;
  zvol: string;
  path: string;
  taskId: number;
  createdAt: string;
}

/**
 * E13: adds a zvol-backed LUN to a target. Unknown target 404; a zvol the node's reported inventory does not
 * list as a volume 404; a zvol that backs a VM of the node (any VM, running or not: a disk of its domain or a
 * dataset of its registration, or under one) 409 — exporting it would give a live block device a second writer;
 * a LUN number the target already uses 409; a zvol any LUN of the node already uses 409.
 * A node whose ctld does not read /etc/ctl.conf as ctl.conf(5) (rc.conf ctld_flags with -u or -f) 409.
 * Persists the LUN and queues `iscsi.apply-config` with the node's whole configuration, in the caller's
 * transaction. The node's row is locked so that two additions on one node are checked one after the other.
 */
export async function addLun(trx: Transaction<Database>, enqueue: Enqueue, targetId: number, req: { lunNumber: number; zvol: string }): Promise<LunView> {
  const target = await trx.selectFrom('iscsi_targets').select(['id', 'name', 'node_id']).where('id', '=', targetId).executeTakeFirst();
  if (!target) throw notFound('iscsi_target_not_found', `iSCSI target ${targetId} does not exist`);
  // a ctld started with -u or -f does not read the /etc/ctl.conf the task would write (409 naming ctld_flags)
  await requireCapability(trx, target.node_id, 'ctld-config');
  const node = await sql<{
    inventory: { datasets?: DatasetInventory[]; vms?: VmInventory[] };
  }>`SELECT inventory FROM nodes WHERE id = ${target.node_id} FOR UPDATE`.execute(trx);
  const datasets = node.rows[0]?.inventory?.datasets ?? [];
  if (!datasets.some((d) => d.type === 'volume' && d.name === req.zvol))
    throw notFound('zvol_not_found', `body.zvol: zvol ${req.zvol} does not exist on node ${target.node_id}`);
  const vm = vmBackedBy(node.rows[0]?.inventory?.vms ?? [], req.zvol);
  if (vm) {
    throw conflict(
      'zvol_in_use',
      `body.zvol: zvol ${req.zvol} backs VM ${vm.rid} (${vm.name}, ${vm.state}); exporting a VM's disk as a LUN would give it a second writer and corrupt it`,
    );
  }

  const sameNumber = await trx
    .selectFrom('iscsi_luns')
    .select('zvol')
    .where('target_id', '=', targetId)
    .where('lun_number', '=', req.lunNumber)
    .executeTakeFirst();
  if (sameNumber) throw conflict('lun_number_in_use', `body.lunNumber: target ${target.name} already has LUN ${req.lunNumber} (${sameNumber.zvol})`);
  const sameZvol = await trx
    .selectFrom('iscsi_luns as l')
    .innerJoin('iscsi_targets as t', 't.id', 'l.target_id')
    .select(['t.name', 'l.lun_number'])
    .where('l.node_id', '=', target.node_id)
    .where('l.zvol', '=', req.zvol)
    .executeTakeFirst();
  if (sameZvol) throw conflict('zvol_in_use', `body.zvol: zvol ${req.zvol} already backs LUN ${sameZvol.lun_number} of target ${sameZvol.name}`);

  const lun = await trx
    .insertInto('iscsi_luns')
    .values({ target_id: targetId, node_id: target.node_id, lun_number: req.lunNumber, zvol: req.zvol })
    .returningAll()
    .executeTakeFirstOrThrow();
  const config = await nodeIscsiConfig(trx, target.node_id);
  const task = await enqueue({ kind: 'iscsi.apply-config', nodeId: target.node_id, resource: resourceKey.iscsi(target.node_id), payload: { config } });
  await trx.updateTable('iscsi_luns').set({ task_id: task.id }).where('id', '=', lun.id).execute();
  return {
    id: lun.id,
    targetId,
    targetName: target.name,
    nodeId: target.node_id,
    lunNumber: lun.lun_number,
    zvol: lun.zvol,
    path: `/dev/zvol/${lun.zvol}`,
    taskId: task.id,
    createdAt: lun.created_at.toISOString(),
  };
}
