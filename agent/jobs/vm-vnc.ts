import type { JobHandler } from './job.ts';
import { VNC_PORT } from '#domain/vms/rules';
import { VNC_WAIT_UNSUPPORTED } from '#domain/vms/vnc-rules';
import { bootsUefi, readVnc, setVnc } from '../drivers/domain-xml-options.ts';
import { redefine, requireShutOffOnHost } from './vm-domain.ts';

/**
 * E19: `<graphics type='vnc'>` + GOP `<video>`; the password goes only into the domain XML. What libvirt would
 * only refuse at the next `virsh start` (bhyve_command.c bhyveBuildGraphicsArgStr: no UEFI loader, a port
 * outside 5900–65535) fails the task here, before anything is defined.
 */
export const vmVnc: JobHandler<'vm.vnc'> = async (ctx, p) => {
  await ctx.progress('checking', 10);
  if (p.wait) throw new Error(`vnc_wait_unsupported: ${VNC_WAIT_UNSUPPORTED}; nothing changed`);
  if (p.enabled && (p.port === null || p.port < VNC_PORT.min || p.port > VNC_PORT.max)) {
    throw new Error(`vnc_port_out_of_range: vnc port must be in range [${VNC_PORT.min},${VNC_PORT.max}], got ${p.port}; nothing changed`);
  }
  const uuid = await requireShutOffOnHost(ctx.exec, p.rid, p.domain);
  await ctx.progress('defining', 50);
  const d = await redefine(ctx.exec, p.rid, uuid, (x) => {
    if (p.enabled && !bootsUefi(x))
      throw new Error(`vnc_needs_uefi: graphics are only supported when booting using UEFI (vm ${p.rid} has no <loader>); nothing changed`);
    setVnc(x, { enabled: p.enabled, bind: p.bind, port: p.port ?? 0, resolution: p.resolution, password: p.password });
  });
  return { rid: p.rid, vnc: readVnc(d) };
};
