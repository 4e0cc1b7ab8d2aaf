import { CommandError, runChecked, type Executor } from '../executors/executor.ts';
import { RACCT_REQUIRED } from '#shared/agent-api/capability-rules';

/**
 * rctl(8): `rctl -u <filter>` prints the subject's resource usage as `resource=value` lines (bytes, or with -h
 * humanized: `memoryuse=78M`); `rctl -a <rule>` adds a rule, `rctl -r <filter>` removes matching rules.
 */
const SUFFIX: Record<string, number> = { '': 1, B: 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40, P: 2 ** 50, E: 2 ** 60 };

/** `78M` → 81788928; plain integers as they are. */
export function parseAmount(text: string): number {
  const m = /^(\d+(?:\.\d+)?)([BKMGTPE]?)$/i.exec(text.trim());
  if (!m) throw new Error(`not an rctl amount: ${text}`);
  return Math.round(Number(m[1]) * SUFFIX[m[2].toUpperCase()]);
}

export function parseRctlUsage(stdout: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of stdout.split('\n')) {
    const m = /^([a-z_]+)=(\S+)$/.exec(line.trim());
    if (m) out[m[1]] = parseAmount(m[2]);
  }
  return out;
}

/** The `memoryuse:deny` rule of a jail (bytes), as the post-start limits add it. */
export const memoryRule = (jail: string, bytes: number) => `jail:${jail}:memoryuse:deny=${bytes}`;

export async function jailUsage(exec: Executor, jail: string): Promise<Record<string, number>> {
  return parseRctlUsage(await runChecked(exec, ['rctl', '-u', `jail:${jail}`]));
}

export async function addRule(exec: Executor, rule: string): Promise<void> {
  await runChecked(exec, ['rctl', '-a', rule]);
}

/**
 * Removes the jail's memory rule (`rctl -r jail:<name>:memoryuse:deny`), the only rule the agent adds; rules an
 * operator loaded for the jail (/etc/rctl.conf) stay. None there (ESRCH) or RACCT off is not an error.
 */
export async function removeMemoryRule(exec: Executor, jail: string): Promise<void> {
  try {
    await runChecked(exec, ['rctl', '-r', `jail:${jail}:memoryuse:deny`]);
  } catch (err) {
    if (!(err instanceof CommandError)) throw err;
  }
}

/**
 * Whether RACCT is on (`sysctl -n kern.racct.enable` is 1; a kernel without RACCT has no such OID). With
 * `needed`, its absence fails the caller's task in the words the API uses, before any `rctl -a`: GENERIC boots
 * with kern.racct.enable=0, a boot-time tunable (kern_racct.c, CTLFLAG_RDTUN), and every rctl call then fails.
 */
export async function requireRacct(exec: Executor, needed: boolean): Promise<boolean> {
  const r = await exec.run(['sysctl', '-n', 'kern.racct.enable']);
  const on = r.code === 0 && r.stdout.trim() === '1';
  if (needed && !on) throw new Error(RACCT_REQUIRED);
  return on;
}
