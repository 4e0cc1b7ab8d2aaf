import { runChecked, type Executor } from '../executors/executor.ts';

/**
 * Which disk every GEOM provider lives on, from `sysctl -n kern.geom.conftxt` (read-only, no module loaded).
 * freebsd-src sys/geom/geom_dump.c g_conftxt prints the DISK and MD classes' providers at level 0 and, under
 * each provider, every geom consuming it one level deeper (g_conftxt_geom): `level class name mediasize
 * sectorsize [class-specific fields]`. So a GELI provider (`ada0p3.eli`), a GPT label (`gpt/zfs0`,
 * `gptid/…`) or a disk-ident label (`diskid/DISK-…`) maps to the level-0 disk above it, whatever its name.
 */
export async function geomDisks(exec: Executor): Promise<Map<string, string>> {
  return parseConftxt(await runChecked(exec, ['sysctl', '-n', 'kern.geom.conftxt']));
}

/** provider name → the level-0 provider (disk or md) it sits on */
export function parseConftxt(text: string): Map<string, string> {
  const out = new Map<string, string>();
  let top: string | null = null;
  for (const line of text.split('\n')) {
    const m = /^(\d+) (\S+) (\S+) \d+ \d+/.exec(line);
    if (!m) continue;
    const [level, name] = [Number(m[1]), m[3]];
    if (level === 0) top = name;
    if (top !== null) out.set(name, top);
  }
  return out;
}
