import type { JobHandler } from './job.ts';
import { updateRegistration } from './vm-domain.ts';

/**
 * E6: libvirt has no setting for it; the agent's graceful stop (`virsh shutdown`, then `virsh destroy`
 * after this many seconds) reads it from the registration. Any VM state, orphaned included.
 */
export const vmShutdownWaitTime: JobHandler<'vm.shutdown-wait-time'> = async (ctx, p) => {
  const reg = await updateRegistration(ctx.exec, p.rid, p.domain, (r) => {
    r.shutdownWaitTime = p.waitTime;
  });
  return { rid: p.rid, shutdownWaitTime: reg.shutdownWaitTime };
};
