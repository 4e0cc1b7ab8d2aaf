import type { SimHost } from '#shared/seed/host/schema';

/**
 * The simulated sysctl MIB: the seed's `sysctls` plus OIDs other parts derive from the host's state
 * (kern.hostname, hw.ncpu, kstat.zfs.misc.arcstats.* …). A capability adds OIDs with
 * {@link registerSysctlProvider}; a writable derived OID carries a `set` that applies the new value.
 */
export interface Oid {
  name: string;
  /** `sysctl -t` type name (FreeBSD sbin/sysctl ctl_typename) */
  type: string;
  value: string;
  writable: boolean;
  /** settable from loader.conf (CTLFLAG_TUN) */
  tunable?: boolean;
  /** statistics (CTLFLAG_STATS): left out of `sysctl -W` */
  stats?: boolean;
  description?: string;
  /** bounds the kernel handler enforces (EINVAL beyond) */
  min?: number;
  max?: number;
  /** applies a validated new value to the state; without it the seeded entry's value is updated */
  set?: (state: SimHost, value: string) => void;
}

type Provider = (state: SimHost, now: number) => Oid[];
const providers: { name: string; fn: Provider }[] = [];

export function registerSysctlProvider(name: string, fn: Provider): void {
  const i = providers.findIndex((p) => p.name === name);
  if (i >= 0) providers[i] = { name, fn };
  else providers.push({ name, fn });
}

// the order of the top-level MIB numbers (kern=1, vm=2 …), which is the order `sysctl -a` walks
const TOP = ['kern', 'vm', 'vfs', 'net', 'debug', 'hw', 'machdep', 'user', 'p1003_1b', 'compat', 'security', 'dev', 'kstat'];
const rank = (name: string) => {
  const i = TOP.indexOf(name.split('.')[0]);
  return i < 0 ? TOP.length : i;
};

/** Every OID, in `sysctl -a` order: by top-level MIB, then in the order the providers list them. */
export function allOids(state: SimHost, now: number): Oid[] {
  const seeded: Oid[] = state.sysctls.map((s) => ({
    ...s,
    set: (st: SimHost, v: string) => {
      const entry = st.sysctls.find((x) => x.name === s.name);
      if (entry) entry.value = v;
    },
  }));
  const derived = providers.flatMap((p) => p.fn(state, now));
  const names = new Set(derived.map((o) => o.name));
  const all = [...seeded.filter((o) => !names.has(o.name)), ...derived];
  return all
    .map((o, i) => ({ o, i }))
    .sort((a, b) => rank(a.o.name) - rank(b.o.name) || a.i - b.i)
    .map((x) => x.o);
}

/** Integer types: bit width and signedness, and the strto* function sysctl(8) parses them with. */
export const INTEGER_TYPES: Record<string, { bits: number; signed: boolean; parse: 'strtol' | 'strtoul' | 'strtoimax' | 'strtoumax' }> = {
  integer: { bits: 32, signed: true, parse: 'strtol' },
  'unsigned integer': { bits: 32, signed: false, parse: 'strtoul' },
  'long integer': { bits: 64, signed: true, parse: 'strtol' },
  'unsigned long': { bits: 64, signed: false, parse: 'strtoul' },
  int8_t: { bits: 8, signed: true, parse: 'strtol' },
  int16_t: { bits: 16, signed: true, parse: 'strtol' },
  int32_t: { bits: 32, signed: true, parse: 'strtol' },
  int64_t: { bits: 64, signed: true, parse: 'strtoimax' },
  uint8_t: { bits: 8, signed: false, parse: 'strtoul' },
  uint16_t: { bits: 16, signed: false, parse: 'strtoul' },
  uint32_t: { bits: 32, signed: false, parse: 'strtoul' },
  uint64_t: { bits: 64, signed: false, parse: 'strtoumax' },
};

/**
 * Parses a new value as sysctl(8) does for an integer type: strtol-family with base 0 (decimal, 0x…, 0…),
 * the whole string must be consumed and fit the C function's range, then the value is cast to the OID's
 * width (a too-wide value wraps, as in C). Returns null where sysctl says "invalid <type>".
 */
export function parseInteger(type: string, text: string): bigint | null {
  const t = INTEGER_TYPES[type];
  if (!t) return null;
  const m = /^\s*([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/.exec(text);
  if (!m) return null;
  const digits = m[2];
  let v = BigInt(/^0[0-7]+$/.test(digits) ? '0o' + digits.slice(1) : digits);
  if (m[1] === '-') v = -v;
  const signedFn = t.parse === 'strtol' || t.parse === 'strtoimax';
  if (signedFn && (v < -(2n ** 63n) || v > 2n ** 63n - 1n)) return null;
  // strtoul accepts a leading minus and negates in unsigned arithmetic
  if (!signedFn && (v > 2n ** 64n - 1n || v < -(2n ** 64n - 1n))) return null;
  return t.signed ? BigInt.asIntN(t.bits, v) : BigInt.asUintN(t.bits, v);
}
