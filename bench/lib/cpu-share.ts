import { mkdirSync, rmdirSync, writeFileSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The CFS period the quota is spread over (the kernel's default). */
const PERIOD_US = 100_000;

/** A CPU cgroup holding a process to a share of one CPU; `wrap` turns a command into one that runs inside it. */
export interface CpuShare {
  wrap(cmd: string, args: string[]): [string, string[]];
  remove(): void;
}

/**
 * A cgroup (v1 `cpu` controller, or v2 `cpu.max`) that holds what runs in it to `fraction` of one CPU, as
 * Lambda gives a function CPU in proportion to its memory. Needs a writable cgroup hierarchy (root on this
 * machine); otherwise a string saying why not.
 */
export function cpuShare(name: string, fraction: number): CpuShare | string {
  const quota = Math.max(1000, Math.round(fraction * PERIOD_US));
  const v1 = '/sys/fs/cgroup/cpu';
  const v2 = '/sys/fs/cgroup';
  let dir: string;
  try {
    if (existsSync(join(v1, 'cpu.cfs_quota_us'))) {
      dir = join(v1, name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'cpu.cfs_period_us'), String(PERIOD_US));
      writeFileSync(join(dir, 'cpu.cfs_quota_us'), String(quota));
    } else if (existsSync(join(v2, 'cgroup.controllers')) && readFileSync(join(v2, 'cgroup.subtree_control'), 'utf8').includes('cpu')) {
      dir = join(v2, name);
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'cpu.max'), `${quota} ${PERIOD_US}`);
    } else return 'no cgroup CPU controller to limit a process with';
  } catch (err) {
    return `cannot make a CPU cgroup (${(err as Error).message})`;
  }
  return {
    // the shell joins the cgroup, then becomes the command: nothing of it runs outside
    wrap: (cmd, args) => ['/bin/sh', ['-c', `echo $$ > ${JSON.stringify(join(dir, 'cgroup.procs'))} && exec "$0" "$@"`, cmd, ...args]],
    remove: () => {
      try {
        rmdirSync(dir);
      } catch {
        /* a process still inside: the kernel removes nothing; left for the next boot */
      }
    },
  };
}
