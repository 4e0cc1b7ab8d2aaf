import { renderCtlConf } from '../drivers/ctl-conf.ts';
import { installCtlConf } from '../drivers/ctld.ts';
import type { JobHandler } from './job.ts';

/**
 * E13 `iscsi.apply-config`: the node's whole iSCSI configuration as `/etc/ctl.conf`, checked by `ctld -t`,
 * installed atomically and reloaded into ctld. A configuration ctld rejects fails the task with ctld's message
 * and leaves the old file in place.
 */
export const iscsiApplyConfig: JobHandler<'iscsi.apply-config'> = async (ctx, p) => {
  const text = renderCtlConf(p.config);
  await ctx.progress('checking', 10, 'ctld -t');
  const { action } = await installCtlConf(ctx.exec, text, String(ctx.task.id));
  await ctx.progress('applied', 100, `service ctld ${action}`);
  return { action, luns: p.config.targets.reduce((n, t) => n + t.luns.length, 0) };
};
