import { sql, type RawBuilder } from 'kysely';

/**
 * How bad a pool health (zpool's `health` property) is, for a roll-up's `worstHealth`: any state not listed
 * (a new or unexpected word) ranks as bad as UNAVAIL rather than hiding behind ONLINE.
 */
const HEALTH_SEVERITY: Record<string, number> = {
  ONLINE: 0,
  DEGRADED: 1,
  OFFLINE: 2,
  REMOVED: 2,
  SUSPENDED: 3,
  FAULTED: 3,
  UNAVAIL: 3,
};
const UNKNOWN_SEVERITY = 3;

const healthSeverity = (health: string) => HEALTH_SEVERITY[health] ?? UNKNOWN_SEVERITY;

export function worstHealth(healths: string[]): string {
  return healths.reduce((worst, h) => (healthSeverity(h) > healthSeverity(worst) ? h : worst), healths[0] ?? 'ONLINE');
}

/** The same ranking as a SQL expression over a column, for roll-ups computed in the store. */
export function severitySql(column: string): RawBuilder<number> {
  const cases = Object.entries(HEALTH_SEVERITY).map(([h, n]) => sql`WHEN ${sql.ref(column)} = ${sql.lit(h)} THEN ${sql.lit(n)}`);
  return sql<number>`(CASE ${sql.join(cases, sql` `)} ELSE ${sql.lit(UNKNOWN_SEVERITY)} END)`;
}
