/**
 * E4 CPU limits (cores: 1 to the host's CPU count). The CPUs a jail is pinned to are the host's least-used
 * ones: for every CPU, count the other jails of the same node pinned to it, take the `cores` CPUs with the
 * lowest counts (ties → the lower CPU number), and list them in ascending order (as `cpuset -l` takes them).
 */
export function leastUsedCpus(hostCpus: number, cores: number, otherJailsCpuSets: number[][]): number[] {
  const use = new Array<number>(hostCpus).fill(0);
  for (const set of otherJailsCpuSets) for (const cpu of set) if (cpu >= 0 && cpu < hostCpus) use[cpu]++;
  return use
    .map((count, cpu) => ({ cpu, count }))
    .sort((a, b) => a.count - b.count || a.cpu - b.cpu)
    .slice(0, cores)
    .map((c) => c.cpu)
    .sort((a, b) => a - b);
}

/** `0,2,3` as `cpuset -l` takes it. */
export const cpuList = (cpus: number[]) => cpus.join(',');

/** Parses a `cpuset -l` list (`0,2-3`) back into CPU numbers. */
export function parseCpuList(list: string): number[] {
  const out = new Set<number>();
  for (const part of list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const m = /^(\d+)(?:-(\d+))?$/.exec(part);
    if (!m) throw new Error(`bad CPU list element: ${part}`);
    const lo = Number(m[1]);
    const hi = m[2] === undefined ? lo : Number(m[2]);
    for (let c = lo; c <= hi; c++) out.add(c);
  }
  return [...out].sort((a, b) => a - b);
}

/**
 * A jail's CPU list made valid for a host with `hostCpus` CPUs (after a migration to a smaller host, or a CPU
 * count that changed): the CPUs the host has are kept, and the missing ones are replaced by the host's lowest
 * CPUs not yet in the list, so the jail keeps its number of cores (at most the host's). Ascending.
 */
export function fitCpuSet(cpus: number[], hostCpus: number): number[] {
  const kept = [...new Set(cpus.filter((c) => c >= 0 && c < hostCpus))];
  const want = Math.min(new Set(cpus).size, hostCpus);
  for (let c = 0; kept.length < want && c < hostCpus; c++) if (!kept.includes(c)) kept.push(c);
  return kept.sort((a, b) => a - b);
}
