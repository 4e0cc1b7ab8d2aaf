import type { JobHandler } from './job.ts';
import { readGuestAgent, setGuestAgent } from '../drivers/domain-xml-options.ts';
import { guestAgentSocket } from '../drivers/vm-runtime.ts';
import { redefine, requireShutOffOnHost } from './vm-domain.ts';

/** E5: the virtio-serial channel `org.qemu.guest_agent.0` on a unix socket under libvirt's run dir. */
export const vmGuestAgent: JobHandler<'vm.guest-agent'> = async (ctx, p) => {
  await ctx.progress('checking', 10);
  await requireShutOffOnHost(ctx.exec, p.rid, p.domain);
  await ctx.progress('defining', 50);
  const d = await redefine(ctx.exec, p.rid, p.domain, (x) => setGuestAgent(x, p.enabled, guestAgentSocket(p.domain)));
  return { rid: p.rid, qemuGuestAgent: readGuestAgent(d) };
};
