import { BlockList, isIP } from 'node:net';
import { setting } from '#shared/config/read';

/**
 * Limits on failed authentication, from the environment (shared/config/settings.ts):
 * - `HM_AUTH_FAIL_LIMIT` (default 10): failed credentials one source may send in a window; the next is refused
 *   with 429 until the window ends.
 * - `HM_AUTH_FAIL_WINDOW_S` (default 60): the window's length in seconds.
 * - `HM_AUTH_FAIL_EXEMPT_CIDRS` (default none): comma-separated ranges whose failures are not counted (a trusted
 *   monitor; the test stack's own address).
 * A value that does not parse is refused naming the setting: a typo must not silently change the limit.
 */
export interface FailedAuthSettings {
  limit: number;
  windowS: number;
  /** `[network, prefix length, family]` */
  exempt: [string, number, 'ipv4' | 'ipv6'][];
}

export const FAILED_AUTH_DEFAULTS = { limit: 10, windowS: 60 } as const;

export function failedAuthSettings(env: NodeJS.ProcessEnv = process.env): FailedAuthSettings {
  return {
    limit: setting('HM_AUTH_FAIL_LIMIT', env),
    windowS: setting('HM_AUTH_FAIL_WINDOW_S', env),
    // each entry is a checked `address/prefix` or a bare address (one host)
    exempt: setting('HM_AUTH_FAIL_EXEMPT_CIDRS', env).map((range) => {
      const [net = '', bits] = range.split('/');
      const v4 = isIP(net) === 4;
      return [net, bits === undefined ? (v4 ? 32 : 128) : Number(bits), v4 ? 'ipv4' : 'ipv6'];
    }),
  };
}

// node's own CIDR matcher: every function bundle authenticates, so a parsing library here would weigh on all of them.
// Settings are read afresh on each refusal (a new array each time), so the list is kept by the ranges' text.
const lists = new Map<string, BlockList>();
function blockListOf(exempt: FailedAuthSettings['exempt']): BlockList {
  const key = exempt.map((e) => e.join('/')).join(',');
  let list = lists.get(key);
  if (!list) {
    list = new BlockList();
    for (const [net, prefix, family] of exempt) list.addSubnet(net, prefix, family);
    if (lists.size >= 16) lists.clear();
    lists.set(key, list);
  }
  return list;
}

/** Whether a source address lies in an exempt range (an unparsable source never does); `::ffff:a.b.c.d` counts as IPv4. */
export function isExemptSource(source: string, settings: FailedAuthSettings): boolean {
  if (settings.exempt.length === 0) return false;
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(source)?.[1];
  const address = mapped ?? source;
  const family = isIP(address);
  if (!family) return false;
  return blockListOf(settings.exempt).check(address, family === 4 ? 'ipv4' : 'ipv6');
}
