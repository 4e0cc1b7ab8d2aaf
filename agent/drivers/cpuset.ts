import { runChecked, type Executor } from '../executors/executor.ts';
import { cpuList } from '#shared/agent-api/jail-cpu';

/** `cpuset -l <cpus> -j <jail>`: pins every thread of a running jail (cpuset(1) takes a jid or a name). */
export const pinJailArgv = (jail: string, cpus: number[]) => ['cpuset', '-l', cpuList(cpus), '-j', jail];

export async function pinJail(exec: Executor, jail: string, cpus: number[]): Promise<void> {
  await runChecked(exec, pinJailArgv(jail, cpus));
}

/**
 * The CPU mask of `cpuset -g` output. bin/cpuset/cpuset.c printaffinity prints two lines, the CPU mask
 * (`jail 3 mask: 0, 1`) and then the memory-domain policy (`jail 3 domain policy: first-touch mask: 0`), both
 * ending in `mask: <list>`: only the first is the CPUs. Null when there is no such line.
 */
export function parseCpusetMask(out: string): number[] | null {
  for (const line of out.split('\n')) {
    const m = /^\S+ -?\d+(?: root| cpuset)? mask: ([\d, ]*)$/.exec(line.trim());
    if (m) return m[1].trim() === '' ? [] : m[1].split(',').map((c) => Number(c.trim()));
  }
  return null;
}
