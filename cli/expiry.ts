const UNIT_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** A token's `--expires`: `30d` / `12h` / `90m` / `8w` from now, or an ISO date or date-time; must lie in the future. */
export function parseExpiry(value: string, now = new Date()): Date {
  const rel = /^(\d{1,6})([mhdw])$/.exec(value);
  const at = rel
    ? new Date(now.getTime() + Number(rel[1]) * UNIT_MS[rel[2]])
    : /^\d{4}-\d{2}-\d{2}([T ][\d:.]+(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)
      ? new Date(value)
      : null;
  if (!at || Number.isNaN(at.getTime()))
    throw new Error(`--expires "${value}": expected a duration such as 30d, 12h, 90m, 8w or an ISO date such as 2026-01-31`);
  if (at <= now) throw new Error(`--expires "${value}" lies in the past`);
  return at;
}
