/** Seed timestamps: ISO 8601, `now`, or relative to `now` (`-90s`, `-15m`, `-2h`, `-7d`), so a demo stays recent. */
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

export function seedTime(value: string, now: Date): Date {
  if (value === 'now') return now;
  const rel = /^-(\d+)([smhd])$/.exec(value);
  if (rel) return new Date(now.getTime() - Number(rel[1]) * UNIT_MS[rel[2] as keyof typeof UNIT_MS]);
  const d = new Date(value);
  if (Number.isNaN(d.getTime())) throw new RangeError(`not a valid date-time: ${value}`);
  return d;
}
