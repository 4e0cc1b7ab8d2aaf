import { BlockList, isIP } from 'node:net';

/**
 * Limits on failed authentication, from the environment:
 * - `HM_AUTH_FAIL_LIMIT` (default 10): failed credentials one source may send in a window; the next is refused
 *   with 429 until the window ends.
 * - `HM_AUTH_FAIL_WINDOW_S` (default 60): the window's length in seconds.
 * - `HM_AUTH_FAIL_EXEMPT_CIDRS` (default none): comma-separated ranges whose failures are not counted (a trusted
 *   monitor; the test stack's own address).
 * A value that does not parse is reported once on stderr and its default used, so a typo never disables the
 * limit nor takes the API down.
 */
export interface FailedAuthSettings {
  limit: number;
  windowS: number;
  /** `[network, prefix length, family]` */
  exempt: [string, number, 'ipv4' | 'ipv6'][];
}

export const FAILED_AUTH_DEFAULTS = { limit: 10, windowS: 60 } as const;

const reported = new Set<string>();
function reportOnce(message: string) {
  if (reported.has(message)) return;
  reported.add(message);
  console.error(message);
}

function positiveInt(env: NodeJS.ProcessEnv, name: string, fallback: number, max: number): number {
  const raw = (env[name] ?? '').trim();
  if (raw === '') return fallback;
  if (/^\d+$/.test(raw) && Number(raw) >= 1 && Number(raw) <= max) return Number(raw);
  reportOnce(`${name}="${raw}" is not an integer 1–${max}; using ${fallback}`);
  return fallback;
}

function cidrs(env: NodeJS.ProcessEnv, name: string): FailedAuthSettings['exempt'] {
  const out: FailedAuthSettings['exempt'] = [];
  for (const part of (env[name] ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [net, bits, extra] = part.split('/');
    const family = isIP(net ?? '');
    const prefix = /^\d{1,3}$/.test(bits ?? '') ? Number(bits) : NaN;
    if (family && extra === undefined && prefix <= (family === 4 ? 32 : 128)) out.push([net!, prefix, family === 4 ? 'ipv4' : 'ipv6']);
    else reportOnce(`${name}: "${part}" is not a CIDR range (e.g. 10.0.0.0/8); ignored`);
  }
  return out;
}

export function failedAuthSettings(env: NodeJS.ProcessEnv = process.env): FailedAuthSettings {
  return {
    limit: positiveInt(env, 'HM_AUTH_FAIL_LIMIT', FAILED_AUTH_DEFAULTS.limit, 1_000_000),
    windowS: positiveInt(env, 'HM_AUTH_FAIL_WINDOW_S', FAILED_AUTH_DEFAULTS.windowS, 86_400),
    exempt: cidrs(env, 'HM_AUTH_FAIL_EXEMPT_CIDRS'),
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
