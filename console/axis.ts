/** An axis's unit for the largest magnitude on it: what a label's number is divided by, and what follows it. */
export type Unit = (maxAbs: number) => [divisor: number, suffix: string];
const BINARY = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
export const byteUnit =
  (suffix = ''): Unit =>
  (m) => {
    let i = 0;
    while (i < BINARY.length - 1 && m >= 1024 ** (i + 1)) i++;
    return [1024 ** i, ` ${BINARY[i]}${suffix}`];
  };
export const countUnit: Unit = (m) => (m >= 1000 ? [1000, 'k'] : [1, '']);
/** latencies arrive in nanoseconds: milliseconds from 1 ms, else µs or ns */
export const nanosAsMillis: Unit = (m) => (m >= 1e6 ? [1e6, ' ms'] : m >= 1e3 ? [1e3, ' µs'] : [1, ' ns']);
export const ratioAsPercent: Unit = () => [0.01, ' %'];

/**
 * An axis's tick labels: one unit for the whole axis (from its largest tick) and as many decimals as the step
 * between ticks needs in that unit, so neighbouring ticks never read the same ("11.9 GiB, 12.0 GiB", not
 * "12 GiB, 12 GiB").
 */
export function tickLabels(splits: number[], incr: number, unit: Unit): string[] {
  const [divisor, suffix] = unit(Math.max(0, ...splits.map((v) => Math.abs(v))));
  const step = incr / divisor;
  const decimals = step > 0 && Number.isFinite(step) ? Math.min(10, Math.max(0, Math.ceil(-Math.log10(step) - 1e-9))) : 0;
  return splits.map((v) => `${(v / divisor).toFixed(decimals)}${suffix}`);
}

/**
 * The short name of the zone a time axis's labels are in ("UTC", "CET", "EST", or "GMT+1" where the locale has no
 * name), as the console prints it after every other time (`toLocaleString` with `timeZoneName: 'short'`). uPlot
 * draws tick labels ("14:05") in the browser's zone, the default here too; `timeZone` and `locale` are for tests.
 */
export function zoneName(at: Date, timeZone?: string, locale?: string): string {
  const parts = new Intl.DateTimeFormat(locale, { timeZone, timeZoneName: 'short' }).formatToParts(at);
  return parts.find((p) => p.type === 'timeZoneName')?.value ?? 'UTC';
}

/** A time axis's title: its labels' zone, said once for all of them. */
export const timeAxisTitle = (zone: string) => `Time (${zone})`;
