import type { JobHandler } from './job.ts';
import { domState } from '../drivers/virsh.ts';
import { removeTrees } from '../drivers/host-files.ts';
import { vmDomainUuid } from '../drivers/vm-lookup.ts';
import { libvirtRuntimeFiles, vmPaths } from '../drivers/vm-runtime.ts';

/**
 * E10 on the host: libvirt is asked again (the control plane's view is an inventory old); a domain that
 * is defined after all keeps everything and fails the task. Otherwise the registration directory and
 * libvirt's per-domain runtime files go. Datasets are never touched.
 */
export const vmPurgeRegistration: JobHandler<'vm.purge-registration'> = async (ctx, p) => {
  const uuid = await vmDomainUuid(ctx.exec, p.rid, p.domain);
  const state = uuid === null ? null : await domState(ctx.exec, uuid);
  if (state !== null) throw new Error(`vm_still_defined: libvirt defines domain ${p.domain} (${state}); its registration was kept`);
  const removed = [vmPaths(p.rid).dir, ...libvirtRuntimeFiles(p.domain)];
  await ctx.progress('removing runtime files', 50);
  await removeTrees(ctx.exec, removed);
  return { rid: p.rid, removed };
};
