import type { JobHandler } from './job.ts';
import { guestAgentChannelMissing } from '#shared/agent-api/capability-rules';
import { readGuestAgent, setGuestAgent } from '../drivers/domain-xml-options.ts';
import { libvirtVersion } from '../drivers/virsh.ts';
import { guestAgentSocket } from '../drivers/vm-runtime.ts';
import { redefine, requireShutOffOnHost } from './vm-domain.ts';

/**
 * E5: the virtio-serial channel `org.qemu.guest_agent.0` on a unix socket under libvirt's run dir. libvirt's
 * bhyve driver turns it into a virtio-console device from 12.4.0 on; before, bhyve_command.c refuses the
 * virtio-serial controller ("unsupported controller device") and the VM would no longer start. The host's
 * libvirt is asked again here (it may have changed since the inventory the API checked).
 */
export const vmGuestAgent: JobHandler<'vm.guest-agent'> = async (ctx, p) => {
  await ctx.progress('checking', 10);
  const uuid = await requireShutOffOnHost(ctx.exec, p.rid, p.domain);
  if (p.enabled) {
    const version = await libvirtVersion(ctx.exec);
    const missing = guestAgentChannelMissing(version);
    if (missing) throw new Error(`capability_missing: ${missing}; nothing changed`);
  }
  await ctx.progress('defining', 50);
  const d = await redefine(ctx.exec, p.rid, uuid, (x) => setGuestAgent(x, p.enabled, guestAgentSocket(p.domain)));
  return { rid: p.rid, qemuGuestAgent: readGuestAgent(d) };
};
