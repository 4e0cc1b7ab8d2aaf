import { addPptDevices, LOADER_CONF, pptDevicesOf } from '../drivers/loader-conf.ts';
import type { JobHandler } from './job.ts';

/**
 * E9 `ppt.import`: the device joins `pptdevs` in /boot/loader.conf, with `ppt_load` and `vmm_load` set,
 * so that ppt(4) claims it again at the next boot. A failing read or write fails the task with its message.
 */
export const pptImport: JobHandler<'ppt.import'> = async (ctx, p) => {
  await ctx.progress('writing', 0, `${LOADER_CONF}: pptdevs += ${p.deviceID}`);
  const { after } = await addPptDevices(ctx.exec, [p.deviceID]);
  const pptdevs = pptDevicesOf(after);
  await ctx.progress('written', 100, `${LOADER_CONF}: pptdevs="${pptdevs.join(' ')}"`);
  return { deviceID: p.deviceID, pptdevs };
};
