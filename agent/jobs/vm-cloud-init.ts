import type { JobHandler } from './job.ts';
import { buildSeedIso, isCloudInitOn, removeSeed } from '../drivers/cloud-init.ts';
import { hasCdrom, setCloudInitCdrom } from '../drivers/domain-xml-options.ts';
import { vmPaths } from '../drivers/vm-runtime.ts';
import { redefine, requireShutOffOnHost, updateRegistration } from './vm-domain.ts';

/**
 * E17: writes the NoCloud seed (user-data, meta-data, network-config), builds its ISO with
 * `makefs -t cd9660` and attaches it as a cdrom; all empty detaches it and removes the seed.
 */
export const vmCloudInit: JobHandler<'vm.cloud-init'> = async (ctx, p) => {
  const texts = { data: p.data, metadata: p.metadata, networkConfig: p.networkConfig };
  const on = isCloudInitOn(texts);
  await ctx.progress('checking', 10);
  const uuid = await requireShutOffOnHost(ctx.exec, p.rid, p.domain);
  const iso = vmPaths(p.rid).cloudInitIso;
  if (on) {
    await ctx.progress('building seed iso', 30);
    await buildSeedIso(ctx.exec, p.rid, texts);
  }
  await ctx.progress('defining', 60);
  const d = await redefine(ctx.exec, p.rid, uuid, (x) => setCloudInitCdrom(x, iso, on));
  if (!on) await removeSeed(ctx.exec, p.rid);
  await updateRegistration(ctx.exec, p.rid, d.title ?? p.domain, (r) => {
    r.cloudInit = texts;
  });
  return { rid: p.rid, cloudInit: on, seedIso: on ? iso : null, attached: hasCdrom(d, iso) };
};
