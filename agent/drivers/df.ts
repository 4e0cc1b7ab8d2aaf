import { runChecked, type Executor } from '../executors/executor.ts';

/**
 * Bytes available to an unprivileged writer on the filesystem holding `path`: `df -k <path>` (bin/df/df.c
 * prtstat: a header line, then `Filesystem 1024-blocks Used Avail Capacity Mounted on`, the Avail column in
 * 1024-byte blocks with -k).
 */
export async function availableBytes(exec: Executor, path: string): Promise<number> {
  return parseDfAvail(await runChecked(exec, ['df', '-k', path]));
}

export function parseDfAvail(out: string): number {
  const rows = out.split('\n').filter((l) => l.trim());
  const fields = rows.at(-1)?.trim().split(/\s+/) ?? [];
  // the data row: filesystem, size, used, avail, capacity, mounted-on
  if (rows.length < 2 || fields.length < 6 || !/^\d+$/.test(fields[3])) throw new Error(`df -k: unexpected output: ${out.trim()}`);
  return Number(fields[3]) * 1024;
}
