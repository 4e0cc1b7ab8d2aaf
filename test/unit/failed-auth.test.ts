// @tier stack
import { testDb, uid } from '../helpers/api.ts';
import { countedSource, pruneFailedAuth, recordFailedAuth } from '#shared/auth/failed-auth';
import { FAILED_AUTH_DEFAULTS, failedAuthSettings, isExemptSource } from '#shared/auth/failed-auth-settings';

/** Counting failed authentications in the store: fixed windows per source, atomic, exempt ranges. */
const settings = (limit: number, windowS: number, exempt = '') =>
  failedAuthSettings({ HM_AUTH_FAIL_LIMIT: String(limit), HM_AUTH_FAIL_WINDOW_S: String(windowS), HM_AUTH_FAIL_EXEMPT_CIDRS: exempt });
const at = (base: Date, s: number) => new Date(base.getTime() + s * 1000);

test('more than the limit within the window is limited until the window ends; then a new window opens', async () => {
  const s = settings(3, 10);
  const source = `src-${uid()}`;
  const t0 = new Date();
  expect(await recordFailedAuth(testDb(), source, s, t0)).toEqual({ limited: false, failures: 1 });
  expect(await recordFailedAuth(testDb(), source, s, at(t0, 1))).toEqual({ limited: false, failures: 2 });
  expect(await recordFailedAuth(testDb(), source, s, at(t0, 2))).toEqual({ limited: false, failures: 3 });
  // the window opened at t0 and lasts 10 s: at t0+2.5 s, 7.5 s are left, rounded up
  expect(await recordFailedAuth(testDb(), source, s, at(t0, 2.5))).toEqual({ limited: true, failures: 4, retryAfterS: 8, counted: source });
  expect(await recordFailedAuth(testDb(), source, s, at(t0, 9.9))).toEqual({ limited: true, failures: 5, retryAfterS: 1, counted: source });
  expect(await recordFailedAuth(testDb(), source, s, at(t0, 10))).toEqual({ limited: false, failures: 1 });
  const row = await testDb().selectFrom('auth_failures').selectAll().where('source', '=', source).executeTakeFirstOrThrow();
  expect(row.window_started_at.getTime()).toBe(at(t0, 10).getTime());
});

test('sources are counted apart, and concurrent failures are all counted', async () => {
  const s = settings(4, 60);
  const [a, b] = [`a-${uid()}`, `b-${uid()}`];
  const verdicts = await Promise.all(Array.from({ length: 9 }, () => recordFailedAuth(testDb(), a, s)));
  expect(verdicts.map((v) => v.failures).sort((x, y) => x - y)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9]);
  expect(verdicts.filter((v) => v.limited)).toHaveLength(5);
  expect(await recordFailedAuth(testDb(), b, s)).toEqual({ limited: false, failures: 1 });
});

test('an exempt source is never counted nor limited', async () => {
  const s = settings(1, 60, '10.9.0.0/16, fd00:9::/32');
  for (const source of ['10.9.1.2', '::ffff:10.9.3.4', 'fd00:9::1']) {
    expect(isExemptSource(source, s)).toBe(true);
    for (let i = 0; i < 3; i++) expect(await recordFailedAuth(testDb(), source, s)).toEqual({ limited: false, failures: 0 });
    expect(await testDb().selectFrom('auth_failures').select('source').where('source', '=', source).execute()).toEqual([]);
  }
  expect(isExemptSource('10.10.0.1', s)).toBe(false);
  expect(isExemptSource('not-an-address', s)).toBe(false);
});

test('pruning drops only the windows that ended', async () => {
  const s = settings(3, 60);
  const now = new Date('2001-02-03T04:05:06Z');
  const [old, live] = [`old-${uid()}`, `live-${uid()}`];
  await recordFailedAuth(testDb(), old, s, at(now, -61));
  await recordFailedAuth(testDb(), live, s, at(now, -59));
  expect(await pruneFailedAuth(testDb(), s, now)).toBeGreaterThanOrEqual(1);
  const left = await testDb().selectFrom('auth_failures').select('source').where('source', 'in', [old, live]).execute();
  expect(left).toEqual([{ source: live }]);
});

test('settings: defaults, and a value that does not parse is refused naming the setting and what it allows', () => {
  expect(failedAuthSettings({})).toEqual({ ...FAILED_AUTH_DEFAULTS, exempt: [] });
  expect(failedAuthSettings({ HM_AUTH_FAIL_EXEMPT_CIDRS: '192.0.2.0/24, 2001:db8::1' }).exempt).toEqual([
    ['192.0.2.0', 24, 'ipv4'],
    ['2001:db8::1', 128, 'ipv6'],
  ]);
  expect(() => failedAuthSettings({ HM_AUTH_FAIL_LIMIT: '0' })).toThrow('HM_AUTH_FAIL_LIMIT="0" is not allowed: expected an integer 1–1000000');
  expect(() => failedAuthSettings({ HM_AUTH_FAIL_WINDOW_S: '1.5' })).toThrow('HM_AUTH_FAIL_WINDOW_S="1.5" is not allowed: expected an integer 1–86400');
  expect(() => failedAuthSettings({ HM_AUTH_FAIL_EXEMPT_CIDRS: '10.0.0.0/33,192.0.2.0/24' })).toThrow(
    'HM_AUTH_FAIL_EXEMPT_CIDRS="10.0.0.0/33,192.0.2.0/24" is not allowed: expected CIDR ranges or addresses',
  );
});

test('an IPv6 client is counted by its /64: rotating through the prefix does not reset the count', async () => {
  const s = settings(3, 60);
  const prefix = `2001:db8:${(Math.floor(Math.random() * 0xffff) + 1).toString(16)}:7`;
  const verdicts = [];
  for (const host of ['::1', ':a:b:c:d', ':ffff:ffff:ffff:ffff', '::2']) verdicts.push(await recordFailedAuth(testDb(), `${prefix}${host}`, s));
  expect(verdicts.map((v) => v.limited)).toEqual([false, false, false, true]);
  // the next /64 is another client
  expect(await recordFailedAuth(testDb(), `${prefix.replace(/:7$/, ':8')}::1`, s)).toEqual({ limited: false, failures: 1 });
  expect(await countedSource(`${prefix}:1:2:3:4`)).toBe(`${prefix}::/64`);
  // IPv4, also IPv4-mapped, counts the exact address
  expect(await countedSource('203.0.113.9')).toBe('203.0.113.9');
  expect(await countedSource('::ffff:203.0.113.9')).toBe('203.0.113.9');
});
