import { getSysctl } from '../../drivers/sysctl.ts';
import { runJob } from '../jobs.ts';
import type { Scenario } from '../runner.ts';

/**
 * A sysctl set and restored through the `tunable.apply` job: vfs.zfs.txg.timeout (seconds between ZFS
 * transaction group commits; present on every OpenZFS host, writable at run time) is raised by one second,
 * read back, and set to its old value again — by the cleanup too, so an interruption restores it.
 */
export const SYSCTL_OID = 'vfs.zfs.txg.timeout';

export const sysctlScenario: Scenario = {
  name: 'sysctl',
  title: `tunable.apply: ${SYSCTL_OID} set to its value + 1, read back, restored`,
  async run(ctx) {
    const before = (await getSysctl(ctx.exec, SYSCTL_OID)).value;
    if (!/^\d+$/.test(before)) throw new Error(`${SYSCTL_OID} is "${before}", not an integer`);
    const changed = String(Number(before) + 1);
    ctx.cleanup(`${SYSCTL_OID}=${before}`, async (exec) => {
      if ((await getSysctl(exec, SYSCTL_OID)).value !== before) await runJob({ ...ctx, exec }, 'tunable.apply', { name: SYSCTL_OID, value: before });
    });
    await runJob(ctx, 'tunable.apply', { name: SYSCTL_OID, value: changed });
    const read = (await getSysctl(ctx.exec, SYSCTL_OID)).value;
    if (read !== changed) throw new Error(`${SYSCTL_OID} reads ${read} after setting ${changed}`);
    await runJob(ctx, 'tunable.apply', { name: SYSCTL_OID, value: before });
    const restored = (await getSysctl(ctx.exec, SYSCTL_OID)).value;
    if (restored !== before) throw new Error(`${SYSCTL_OID} reads ${restored} after restoring ${before}`);
    return `${SYSCTL_OID} ${before} -> ${changed} -> ${before}`;
  },
};
