/**
 * Numbers as zpool/zfs print them: exact with -p (`11959578624`), or humanised without it (`983G`,
 * `2.28M`, `1.68K`, latencies `881ns`/`1us`/`12ms`). Legacy ZFS prints `-p` percentages and ratios with
 * a unit (`4%`, `1.00x`). `-` means "not applicable" and reads as null.
 */
const BYTE_UNITS: Record<string, number> = { '': 1, B: 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40, P: 2 ** 50, E: 2 ** 60 };
const TIME_UNITS: Record<string, number> = { ns: 1, us: 1e3, ms: 1e6, s: 1e9 };

/** A size or count: `11959578624`, `983G`, `2.28M`, `1.68K`, `0B` → bytes (rounded); `-` → null. */
export function parseSize(text: string): number | null {
  const t = text.trim();
  if (t === '-' || t === '') return null;
  const m = /^(\d+(?:[.,]\d+)?)([BKMGTPE]?)B?$/i.exec(t);
  if (!m) throw new Error(`not a ZFS size: ${text}`);
  return Math.round(Number(m[1].replace(',', '.')) * BYTE_UNITS[m[2].toUpperCase()]);
}

/** A latency: `881ns`, `1us`, `12ms`, `2s`, or raw nanoseconds with -p; `-` → null. */
export function parseLatency(text: string): number | null {
  const t = text.trim();
  if (t === '-' || t === '') return null;
  const m = /^(\d+(?:\.\d+)?)(ns|us|ms|s)?$/.exec(t);
  if (!m) throw new Error(`not a ZFS latency: ${text}`);
  return Math.round(Number(m[1]) * (m[2] ? TIME_UNITS[m[2]] : 1));
}

/** A percentage or ratio: `4`, `4%`, `1.00`, `1.00x`; `-` → null. */
export function parseNumber(text: string): number | null {
  const t = text.trim().replace(/[%x]$/, '');
  if (t === '-' || t === '') return null;
  const n = Number(t);
  if (!Number.isFinite(n)) throw new Error(`not a number: ${text}`);
  return n;
}
