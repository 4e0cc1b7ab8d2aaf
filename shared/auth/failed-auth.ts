import { sql, type Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { isExemptSource, type FailedAuthSettings } from './failed-auth-settings.ts';
import { ipLibrary } from './ip-library.ts';

/** What counting one failed authentication decided. */
type FailedAuthVerdict =
  /** within the limit (or an exempt source): answer the failure as it is */
  | { limited: false; failures: number }
  /** more than the limit in the current window: refuse `counted` (countedSource) for `retryAfterS` seconds */
  | { limited: true; failures: number; retryAfterS: number; counted: string };

/**
 * Whom a failure is counted against: an IPv4 address as it is (also when the gateway spells it IPv4-mapped), an
 * IPv6 address by its /64 — one subscriber's prefix, through which a client can rotate at will — and anything
 * else as it is.
 */
export async function countedSource(source: string): Promise<string> {
  const ipaddr = await ipLibrary();
  if (!ipaddr.isValid(source)) return source;
  const a = ipaddr.process(source);
  if (a.kind() === 'ipv4') return a.toString();
  const bytes = a.toByteArray().fill(0, 8);
  return `${ipaddr.fromByteArray(bytes).toString()}/64`;
}

/**
 * Counts one failed authentication of `source` (by countedSource) and says whether the source is over the limit. Fixed windows:
 * the first failure opens a window of `windowS` seconds; a failure after it ended opens a new one. One atomic
 * upsert, so concurrent functions never lose a count. Only failures are counted: a valid credential is never
 * refused, whatever its source sent before.
 */
export async function recordFailedAuth(db: Kysely<Database>, source: string, settings: FailedAuthSettings, now = new Date()): Promise<FailedAuthVerdict> {
  if (isExemptSource(source, settings)) return { limited: false, failures: 0 };
  const counted = await countedSource(source);
  const expired = new Date(now.getTime() - settings.windowS * 1000);
  const row = await db
    .insertInto('auth_failures')
    .values({ source: counted, window_started_at: now, failures: 1 })
    .onConflict((oc) =>
      oc.column('source').doUpdateSet({
        window_started_at: sql<Date>`CASE WHEN auth_failures.window_started_at <= ${expired} THEN ${now} ELSE auth_failures.window_started_at END`,
        failures: sql<number>`CASE WHEN auth_failures.window_started_at <= ${expired} THEN 1 ELSE auth_failures.failures + 1 END`,
      }),
    )
    .returning(['window_started_at', 'failures'])
    .executeTakeFirstOrThrow();
  if (row.failures <= settings.limit) return { limited: false, failures: row.failures };
  const endsAt = new Date(row.window_started_at).getTime() + settings.windowS * 1000;
  return { limited: true, failures: row.failures, retryAfterS: Math.max(1, Math.ceil((endsAt - now.getTime()) / 1000)), counted };
}

/** Drops the rows of windows that ended before `now` (they would restart at the next failure anyway). */
export async function pruneFailedAuth(db: Kysely<Database>, settings: FailedAuthSettings, now = new Date()): Promise<number> {
  const res = await db
    .deleteFrom('auth_failures')
    .where('window_started_at', '<=', new Date(now.getTime() - settings.windowS * 1000))
    .executeTakeFirst();
  return Number(res.numDeletedRows);
}
