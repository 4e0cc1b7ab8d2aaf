/**
 * Number, time and table formatting the way FreeBSD's zpool/zfs/sysctl print them, so the simulator's
 * output is byte-compatible with the real commands (and with the parsers tested on real samples).
 */

export type NicenumFormat = '1024' | 'bytes' | 'time';

const UNITS: Record<NicenumFormat, string[]> = {
  '1024': ['', 'K', 'M', 'G', 'T', 'P', 'E'],
  bytes: ['B', 'K', 'M', 'G', 'T', 'P', 'E'],
  time: ['ns', 'us', 'ms', 's'],
};

/**
 * libzfs `zfs_nicenum_format`: the shortest of 2, 1 or 0 decimals that fits 5 characters; an exact
 * multiple of the unit prints without decimals; times never print decimals and a zero time prints `-`.
 */
export function nicenum(num: number, format: NicenumFormat = '1024'): string {
  const k = format === 'time' ? 1000 : 1024;
  const units = UNITS[format];
  let n = Math.floor(num);
  let index = 0;
  while (n >= k && index < units.length - 1) {
    n = Math.floor(n / k);
    index++;
  }
  const u = units[index];
  if (format === 'time' && num === 0) return '-';
  const div = k ** index;
  if (index === 0 || num % div === 0) return `${n}${u}`;
  const val = num / div;
  if (format === 'time') return `${Math.floor(val)}${u}`;
  for (let i = 2; i >= 0; i--) {
    const s = `${val.toFixed(i)}${u}`;
    if (s.length <= 5 || i === 0) return s;
  }
  return `${n}${u}`;
}

/** `-p` output of a latency: the raw integer, or `-` for zero (libzfs ZFS_NICENUM_RAWTIME). */
export function rawTime(ns: number): string {
  const n = Math.round(ns);
  return n > 0 ? String(n) : '-';
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number) => String(n).padStart(2, '0');

/** ctime(3) without the newline, local time: `Mon Jun  2 14:52:38 2014`. */
export function ctime(ms: number): string {
  const d = new Date(ms);
  return `${DAYS[d.getDay()]} ${MONTHS[d.getMonth()]} ${String(d.getDate()).padStart(2, ' ')} ${p2(d.getHours())}:${p2(d.getMinutes())}:${p2(d.getSeconds())} ${d.getFullYear()}`;
}

/** zfs holds' time, local: strftime "%a %b %e %H:%M %Y" (zfs_main.c print_holds, STRFTIME_FMT_STR): `Mon Jun  2 14:52 2014`. */
export function holdTime(ms: number): string {
  const d = new Date(ms);
  return `${DAYS[d.getDay()]} ${MONTHS[d.getMonth()]} ${String(d.getDate()).padStart(2, ' ')} ${p2(d.getHours())}:${p2(d.getMinutes())} ${d.getFullYear()}`;
}

/** zpool's secs_to_dhms: `01:25:12`, or `2 days 01:25:12`. */
export function dhms(totalSeconds: number): string {
  const s = Math.max(0, Math.floor(totalSeconds));
  const days = Math.floor(s / 86400);
  const hms = `${p2(Math.floor(s / 3600) % 24)}:${p2(Math.floor(s / 60) % 60)}:${p2(s % 60)}`;
  return days > 0 ? `${days} days ${hms}` : hms;
}

export interface ParsedOptions {
  flags: Set<string>;
  /** options that take an argument; repeated options keep the last value */
  values: Map<string, string>;
  /** every value of each option that takes an argument, in order (`zpool create -o a=1 -o b=2`) */
  all: Map<string, string[]>;
  operands: string[];
}

export class UsageError extends Error {}

/** A bad property name (`-o`, `-s`, `get <prop>`): zpool and zfs print the message alone and exit 2, without the usage text. */
export class BadPropertyError extends Error {}

/**
 * getopt(3) with GNU-style permutation (options may follow operands, as OpenZFS on FreeBSD accepts);
 * `spec` like `Hpo:t:` — a letter followed by `:` takes an argument. `--` ends the options.
 */
export function getopt(args: string[], spec: string): ParsedOptions {
  const withArg = new Set<string>();
  const known = new Set<string>();
  for (let i = 0; i < spec.length; i++) {
    known.add(spec[i]);
    if (spec[i + 1] === ':') {
      withArg.add(spec[i]);
      i++;
    }
  }
  const out: ParsedOptions = { flags: new Set(), values: new Map(), all: new Map(), operands: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '--') {
      out.operands.push(...args.slice(i + 1));
      break;
    }
    if (!a.startsWith('-') || a === '-') {
      out.operands.push(a);
      continue;
    }
    for (let j = 1; j < a.length; j++) {
      const c = a[j];
      if (!known.has(c)) throw new UsageError(`invalid option '${c}'`);
      if (withArg.has(c)) {
        const v = j + 1 < a.length ? a.slice(j + 1) : args[++i];
        if (v === undefined) throw new UsageError(`missing argument for '${c}' option`);
        out.values.set(c, v);
        out.all.set(c, [...(out.all.get(c) ?? []), v]);
        break;
      }
      out.flags.add(c);
    }
  }
  return out;
}

/**
 * Column output of zpool/zfs without -H: left-aligned text, right-aligned numbers, two spaces between
 * columns, no padding after the last column.
 */
export function table(header: string[], rows: string[][], rightAligned: boolean[]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => {
        const last = i === cells.length - 1;
        if (rightAligned[i]) return c.padStart(widths[i]);
        return last ? c : c.padEnd(widths[i]);
      })
      .join('  ');
  return [line(header), ...rows.map(line)].join('\n') + '\n';
}

/** A slow deterministic wobble in [-1, 1] so rates vary over time without randomness. */
export function wobble(seconds: number, periodSeconds: number, phase = 0): number {
  return Math.sin((2 * Math.PI * seconds) / periodSeconds + phase);
}

/** Stable phase from a name, so two pools do not wobble in step. */
export function phaseOf(name: string): number {
  let h = 0;
  for (const c of name) h = (h * 31 + c.charCodeAt(0)) % 1000;
  return (h / 1000) * 2 * Math.PI;
}

/** `zfs get` / `zpool get` output: TAB-separated with -H, else a left-aligned table with an upper-case header. */
export function propertyListing(fields: string[], rows: string[][], scripted: boolean): string {
  if (scripted) return rows.map((r) => r.join('\t') + '\n').join('');
  return rows.length
    ? table(
        fields.map((f) => f.toUpperCase()),
        rows,
        fields.map(() => false),
      )
    : '';
}

/** libxo's output option, which FreeBSD tools take as `--libxo json`, `--libxo=json` or `--libxo:json`, apart from the other arguments. */
export function splitLibxo(argv: string[]): { args: string[]; libxo: string | null } {
  const args: string[] = [];
  let libxo: string | null = null;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--libxo') libxo = argv[++i] ?? '';
    else if (a.startsWith('--libxo=') || a.startsWith('--libxo:')) libxo = a.slice(8);
    else args.push(a);
  }
  return { args, libxo };
}
