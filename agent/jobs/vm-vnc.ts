import type { JobHandler } from './job.ts';
import { readVnc, setVnc } from '../drivers/domain-xml-options.ts';
import { redefine, requireShutOffOnHost } from './vm-domain.ts';

/** E19: `<graphics type='vnc'>` + GOP `<video>`; the password goes only into the domain XML. */
export const vmVnc: JobHandler<'vm.vnc'> = async (ctx, p) => {
  await ctx.progress('checking', 10);
  await requireShutOffOnHost(ctx.exec, p.rid, p.domain);
  await ctx.progress('defining', 50);
  const d = await redefine(ctx.exec, p.rid, p.domain, (x) =>
    setVnc(x, { enabled: p.enabled, bind: p.bind, port: p.port ?? 0, resolution: p.resolution, wait: p.wait, password: p.password }),
  );
  return { rid: p.rid, vnc: readVnc(d) };
};
