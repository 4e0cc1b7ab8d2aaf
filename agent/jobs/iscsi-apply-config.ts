import { installCtlConf } from '../drivers/ctld.ts';
import type { JobHandler } from './job.ts';

/**
 * E13 `iscsi.apply-config`: the node's iSCSI configuration merged into `/etc/ctl.conf` (what the host defined itself
 * kept byte for byte, or the task fails naming the statement; a ctld whose rc.conf ctld_flags has -u or -f is
 * refused), checked (`ctld -t`, or the
 * agent's reading of ctld's grammar where ctld has no `-t`), installed atomically, loaded into ctld, confirmed with
 * ctladm, and `ctld_enable=YES` kept for the next boot. A configuration ctld refuses or does not apply fails the
 * task with the reason; a refused file leaves the old one in place.
 */
export const iscsiApplyConfig: JobHandler<'iscsi.apply-config'> = async (ctx, p) => {
  await ctx.progress('checking', 10, 'ctl.conf');
  const { action, check } = await installCtlConf(ctx.exec, p.config, String(ctx.task.id));
  await ctx.progress('applied', 100, `service ctld ${action}; served LUNs confirmed with ctladm`);
  return { action, check, luns: p.config.targets.reduce((n, t) => n + t.luns.length, 0) };
};
