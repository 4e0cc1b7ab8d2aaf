import spec from '#spec/system/ppt-devices-import';
import { endpoint } from '#http/endpoint';
import { created, ok } from '#http/envelope';
import { withTasks } from '#http/accept';
import { importPptDevice } from '#domain/ppt/import';
import type { Input } from './ppt-devices-import.schema.ts';

/**
 * E9: 201 with the new record, or 200 Already Managed with the existing one; the agent adds the device to
 * /boot/loader.conf's pptdevs (agent/jobs/ppt-import.ts).
 */
export const handler = endpoint<Input>(spec, async ({ query, body }, ctx) => {
  const r = await withTasks(ctx, (trx, enqueue) =>
    importPptDevice(trx, enqueue, { nodeId: query.nodeId, deviceID: body.deviceID, domain: body.domain }, ctx.principal.name),
  );
  return r.created ? created('ppt_device_imported', r.device) : ok('ppt_device_already_managed', r.device);
});
