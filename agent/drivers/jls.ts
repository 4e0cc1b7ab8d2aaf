import { runChecked, type Executor } from '../executors/executor.ts';

/**
 * `jls -v --libxo json`: the running jails. libxo's JSON is `{"__version": "2", "jail-information": {"jail": [...]}}`.
 * Without `-v` jls prints jid, ipv4, hostname and path only (no name): both forms are read.
 */
interface RunningJail {
  jid: number;
  /** absent without -v */
  name: string | null;
  hostname: string;
  path: string;
  /** `ACTIVE` or `DYING` with -v */
  state: string | null;
  cpusetId: number | null;
  ipv4: string[];
  ipv6: string[];
}

const list = (v: unknown): string[] => (Array.isArray(v) ? v.map(String) : typeof v === 'string' && v ? [v] : []);

export function parseJlsJson(stdout: string): RunningJail[] {
  const doc = JSON.parse(stdout) as { 'jail-information'?: { jail?: Array<Record<string, unknown>> } };
  const jails = doc['jail-information']?.jail ?? [];
  return jails.map((j) => ({
    jid: Number(j.jid),
    name: typeof j.name === 'string' ? j.name : null,
    hostname: String(j.hostname ?? ''),
    path: String(j.path ?? ''),
    state: typeof j.state === 'string' ? j.state : null,
    cpusetId: typeof j.cpusetid === 'number' ? j.cpusetid : null,
    ipv4: j.ipv4_addrs !== undefined ? list(j.ipv4_addrs) : list(j.ipv4),
    ipv6: j.ipv6_addrs !== undefined ? list(j.ipv6_addrs) : list(j.ipv6),
  }));
}

/** The host's running jails (dying ones are not listed without -d). */
export async function listRunningJails(exec: Executor): Promise<RunningJail[]> {
  return parseJlsJson(await runChecked(exec, ['jls', '-v', '--libxo', 'json']));
}
