import { addPptDevices, LOADER_CONF, pptDevicesOf } from '../drivers/loader-conf.ts';
import type { JobHandler } from './job.ts';

/**
 * E9 `ppt.import`: the device joins the passthrough devices of /boot/loader.conf (pptdevs, then pptdevs2 and
 * pptdevs3 past 128 characters), with `vmm_load="YES"`, so that ppt(4) claims it again at the next boot. A
 * failing read or write, devices that do not fit, or a later loader file overriding them fails the task with the
 * reason.
 */
export const pptImport: JobHandler<'ppt.import'> = async (ctx, p) => {
  await ctx.progress('writing', 0, `${LOADER_CONF}: pptdevs += ${p.deviceID}`);
  const { after } = await addPptDevices(ctx.exec, [p.deviceID]);
  const pptdevs = pptDevicesOf(after);
  await ctx.progress('written', 100, `${LOADER_CONF}: ${pptdevs.length} passthrough devices`);
  return { deviceID: p.deviceID, pptdevs };
};
