import type { Result } from './sequence.ts';

/**
 * What the comparison ignores, because it differs between any two runs of the same commands or between a
 * FreeBSD disk and a file vdev, not between behaviours:
 * - GUIDs, byte counts and Unix times (any number of 4 digits or more): `<n>`;
 * - human sizes (`106K`, `1.50M`, `0B`) and ratios/percentages: `<size>`;
 * - dates (`Mon Jan  5 12:00 2026`, with or without seconds) and durations (`00:00:01`, `0.66 seconds`): `<time>`;
 * - the OpenZFS version string of `zfs version`: `<version>`;
 * - column padding of human-readable tables (widths follow the values): runs of spaces become two.
 * Lines the source prints in an unspecified order are sorted by the step (`unordered`).
 */
const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MON = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';

export function normaliseText(text: string): string {
  return text
    .replace(/zfs(-kmod)?-\d+\.\d+\.\d+\S*/g, 'zfs$1-<version>')
    .replace(new RegExp(`${DAY} ${MON} +\\d+ \\d\\d:\\d\\d(:\\d\\d)? \\d{4}`, 'g'), '<time>')
    .replace(/\b\d+:\d\d:\d\d\b/g, '<time>')
    .replace(/\b\d+(\.\d+)? seconds\b/g, '<time> seconds')
    .replace(/\b\d+(\.\d+)?[BKMGTPE](\/s)?(?![A-Za-z0-9])/g, '<size>')
    .replace(/\b\d+(\.\d+)?[x%](?![A-Za-z0-9])/g, '<size>')
    .replace(/\b\d{4,}\b/g, '<n>')
    .split('\n')
    .map((l) => l.replace(/(\S) {2,}/g, '$1  ').replace(/\s+$/, ''))
    .join('\n');
}

/** `numbers`: every number is `<n>` (zpool iostat counters, FRAG, a send estimate: they follow block allocation). */
export function normalise(r: Result, opts: { unordered?: boolean; numbers?: boolean } = {}): Result {
  let stdout = normaliseText(r.stdout);
  if (opts.numbers) stdout = stdout.replace(/\b\d+\b/g, '<n>');
  const unordered = opts.unordered;
  if (unordered) stdout = stdout.split('\n').sort().join('\n');
  return { code: r.code, stdout, stderr: normaliseText(r.stderr) };
}
