import { runChecked, type Executor } from '../executors/executor.ts';
import { cpuList } from '#domain/jails/cpu';

/** `cpuset -l <cpus> -j <jail>`: pins every thread of a running jail (cpuset(1) takes a jid or a name). */
export const pinJailArgv = (jail: string, cpus: number[]) => ['cpuset', '-l', cpuList(cpus), '-j', jail];

export async function pinJail(exec: Executor, jail: string, cpus: number[]): Promise<void> {
  await runChecked(exec, pinJailArgv(jail, cpus));
}
