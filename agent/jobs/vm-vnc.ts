import type { JobHandler } from './job.ts';
import { VNC_PORT } from '#shared/agent-api/vm-rules';
import { bootsUefi, readVnc, setVnc } from '../drivers/domain-xml-options.ts';
import { setVncWait } from '../drivers/vnc-wait.ts';
import { redefine, requireShutOffOnHost } from './vm-domain.ts';

/**
 * E19: `<graphics type='vnc'>` + GOP `<video>`; the password goes only into the domain XML. What libvirt would
 * only refuse at the next `virsh start` (bhyve_command.c bhyveBuildGraphicsArgStr: no UEFI loader, a port
 * outside 5900–65535) fails the task here, before anything is defined. `wait` is bhyve's option on the
 * video's PCI slot, passed through `<bhyve:commandline>` (drivers/vnc-wait.ts): a video new to the domain has
 * its slot only once libvirt defined it, so the wait is then written by a second define.
 */
export const vmVnc: JobHandler<'vm.vnc'> = async (ctx, p) => {
  await ctx.progress('checking', 10);
  if (p.enabled && (p.port === null || p.port < VNC_PORT.min || p.port > VNC_PORT.max)) {
    throw new Error(`vnc_port_out_of_range: vnc port must be in range [${VNC_PORT.min},${VNC_PORT.max}], got ${p.port}; nothing changed`);
  }
  const uuid = await requireShutOffOnHost(ctx.exec, p.rid, p.domain);
  const wait = p.enabled && p.wait;
  await ctx.progress('defining', 50);
  let d = await redefine(ctx.exec, p.rid, uuid, (x) => {
    if (p.enabled && !bootsUefi(x))
      throw new Error(`vnc_needs_uefi: graphics are only supported when booting using UEFI (vm ${p.rid} has no <loader>); nothing changed`);
    setVnc(x, { enabled: p.enabled, bind: p.bind, port: p.port ?? 0, resolution: p.resolution, password: p.password });
    setVncWait(x, wait);
  });
  if (readVnc(d).wait !== wait) {
    await ctx.progress('defining the wait', 75);
    d = await redefine(ctx.exec, p.rid, uuid, (x) => {
      if (!setVncWait(x, wait)) throw new Error(`vnc_wait_unplaced: libvirt gave vm ${p.rid}'s video no PCI address; VNC is defined without waiting`);
    });
    if (readVnc(d).wait !== wait) throw new Error(`vnc_wait_not_kept: libvirt's definition of vm ${p.rid} does not keep the wait; VNC is defined without it`);
  }
  return { rid: p.rid, vnc: readVnc(d) };
};
