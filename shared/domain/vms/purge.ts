import type { Transaction } from 'kysely';
import type { Enqueue } from '#shared/jobs/tasks';
import { conflict } from '#shared/errors/domain-errors';
import { resourceKey } from '#shared/agent-api/task-kinds';
import type { Database } from '#store/tables';
import { lockVm, requireNodeOnline, vmConfigOf } from './guests.ts';
import { macObjectsOf } from './mac-objects.ts';
import type { VmUndo } from './outcomes.ts';

/** The spec's Purge result (part 2), plus the task that removes the files on the host. */
interface PurgeResult {
  deletedMacObjectIds: number[];
  retainedDatasets: string[];
  retainedMacObjectIds: number[];
  warnings: string[];
  taskId: number;
}

/**
 * E10: removes an orphaned VM registration — a VM the control plane knows whose domain libvirt no longer
 * defines. Only such a registration (409 `vm_still_defined` otherwise; the agent checks libvirt again
 * before it deletes a file). The row and its MAC bindings go now; with `deleteMacs` the MAC objects no
 * other VM uses go too; datasets are never touched. The agent removes the runtime files.
 */
export async function purgeRegistration(trx: Transaction<Database>, enqueue: Enqueue, rid: number, deleteMacs: boolean): Promise<PurgeResult> {
  const vm = await lockVm(trx, rid);
  await requireNodeOnline(trx, vm);
  if (vm.state !== 'orphaned') {
    throw conflict(
      'vm_still_defined',
      `vm ${rid} is still defined in libvirt on node ${vm.node_id} (state: ${vm.state}); only an orphaned registration can be purged`,
    );
  }
  const config = vmConfigOf(vm);
  const macs = await macObjectsOf(trx, rid);
  const warnings: string[] = [];
  const deletable = deleteMacs ? macs.filter((m) => m.otherVmIds.length === 0) : [];
  for (const m of macs) {
    if (deleteMacs && m.otherVmIds.length) warnings.push(`MAC object ${m.id} (${m.mac}) kept: also used by vm ${m.otherVmIds.join(', vm ')}`);
  }
  const undo: VmUndo = {
    guest: { ...vm, created_at: vm.created_at.toISOString(), updated_at: vm.updated_at.toISOString() },
    macObjects: deletable.length
      ? (
          await trx
            .selectFrom('vm_mac_objects')
            .selectAll()
            .where(
              'id',
              'in',
              deletable.map((m) => m.id),
            )
            .execute()
        ).map((m) => ({ ...m, created_at: m.created_at.toISOString() }))
      : [],
    bindings: macs.map((m) => m.id),
  };
  if (deletable.length)
    await trx
      .deleteFrom('vm_mac_objects')
      .where(
        'id',
        'in',
        deletable.map((m) => m.id),
      )
      .execute();
  await trx.deleteFrom('guests').where('id', '=', rid).execute();
  const task = await enqueue({
    kind: 'vm.purge-registration',
    nodeId: vm.node_id,
    resource: resourceKey.vm(rid),
    payload: { rid, domain: config.domain },
    undo,
  });
  const deleted = new Set(deletable.map((m) => m.id));
  return {
    deletedMacObjectIds: [...deleted],
    retainedDatasets: config.datasets,
    retainedMacObjectIds: macs.filter((m) => !deleted.has(m.id)).map((m) => m.id),
    warnings,
    taskId: task.id,
  };
}
