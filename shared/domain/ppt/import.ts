import type { Selectable, Transaction } from 'kysely';
import { conflict, notFound } from '#shared/errors/domain-errors';
import type { Enqueue } from '#shared/jobs/tasks';
import type { Database, PptDevicesTable } from '#store/tables';
import { targetNode } from '#domain/pools/target-node';
import type { PciDeviceInventory } from './types.ts';
import { checkPciDomain, parsePciDeviceId, type PciAddress } from './address.ts';

/** The driver a device must already be attached to: bhyve's passthrough driver. */
const PPT_DRIVER = 'ppt';
/** Edits of /boot/loader.conf on one node run one at a time. */
const LOADER_CONF_RESOURCE = 'file:/boot/loader.conf';

/** E9's record (the spec's `{id, deviceID, domain, oldDriver}`), plus the node and the task writing loader.conf. */
function toPptDeviceView(r: Selectable<PptDevicesTable>) {
  return { id: r.id, deviceID: r.device_id, domain: r.domain, oldDriver: r.old_driver, nodeId: r.node_id, taskId: r.task_id };
}
type PptDeviceView = ReturnType<typeof toPptDeviceView>;

interface PptImportRequest {
  nodeId?: string;
  deviceID: string;
  domain: string;
}

const sameAddress = (d: PciDeviceInventory, a: PciAddress) => d.domain === 0 && d.bus === a.bus && d.slot === a.slot && d.function === a.function;

/**
 * E9: takes a domain-zero PCI device that the host already attached to `ppt` under management. Rules: domain
 * 0 only and bus ≤ 255 / slot ≤ 31 / function ≤ 7 (400); a device already managed on the node answers with
 * its record (`created: false`, Already Managed); a device the node's inventory does not list is 404
 * pci_device_not_found; one on another driver is 409 pci_device_not_ppt. Otherwise the record is stored and
 * a `ppt.import` task (pptdevs[2,3] and vmm_load in /boot/loader.conf) queued — in the caller's transaction.
 */
export async function importPptDevice(
  trx: Transaction<Database>,
  enqueue: Enqueue,
  req: PptImportRequest,
  requestedBy: string,
): Promise<{ created: boolean; device: PptDeviceView }> {
  const domain = checkPciDomain(req.domain);
  const addr = parsePciDeviceId(req.deviceID);
  const nodeId = await targetNode(trx, req.nodeId);
  const managed = () =>
    trx
      .selectFrom('ppt_devices')
      .selectAll()
      .where('node_id', '=', nodeId)
      .where('domain', '=', domain)
      .where('bus', '=', addr.bus)
      .where('slot', '=', addr.slot)
      .where('function', '=', addr.function)
      .executeTakeFirst();

  const existing = await managed();
  if (existing) return { created: false, device: toPptDeviceView(existing) };

  const node = await trx.selectFrom('nodes').select('inventory').where('id', '=', nodeId).executeTakeFirstOrThrow();
  const devices = ((node.inventory as { pciDevices?: PciDeviceInventory[] }).pciDevices ?? []) as PciDeviceInventory[];
  const device = devices.find((d) => sameAddress(d, addr));
  if (!device) throw notFound('pci_device_not_found', `PCI device ${addr.deviceID} (domain 0) does not exist on node ${nodeId}`);
  if (device.driver !== PPT_DRIVER) {
    throw conflict(
      'pci_device_not_ppt',
      `PCI device ${addr.deviceID} is attached to ${device.driver}${device.driver === 'none' ? '' : device.unit} (${device.selector}), not to ${PPT_DRIVER}`,
    );
  }

  const inserted = await trx
    .insertInto('ppt_devices')
    .values({
      node_id: nodeId,
      domain,
      bus: addr.bus,
      slot: addr.slot,
      function: addr.function,
      device_id: addr.deviceID,
      old_driver: device.driver,
      requested_by: requestedBy,
    })
    .onConflict((oc) => oc.columns(['node_id', 'domain', 'bus', 'slot', 'function']).doNothing())
    .returningAll()
    .executeTakeFirst();
  // a concurrent import of the same device committed first: that one is the record
  if (!inserted) return { created: false, device: toPptDeviceView((await managed())!) };

  const task = await enqueue({ kind: 'ppt.import', nodeId, resource: LOADER_CONF_RESOURCE, payload: { deviceID: addr.deviceID } });
  const row = await trx.updateTable('ppt_devices').set({ task_id: task.id }).where('id', '=', inserted.id).returningAll().executeTakeFirstOrThrow();
  return { created: true, device: toPptDeviceView(row) };
}
