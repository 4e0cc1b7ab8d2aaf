// @tier stack
import { sql } from 'kysely';
import { testDb, uid } from '../helpers/api.ts';
import { createToken, generateToken, verifyToken } from '#shared/auth/tokens';
import { touchToken } from '#shared/auth/last-use';

/** A token's last use is written at most once a minute, and a lookup that read a recent one costs no write. */
test('the lookup reports last_used_at; a recent one is not written again, an old one is', async () => {
  const secret = generateToken();
  const { id } = await createToken(testDb(), { name: `touch ${uid()}`, role: 'viewer', secret });
  const row = () => testDb().selectFrom('api_tokens').select('last_used_at').where('id', '=', id).executeTakeFirstOrThrow();
  const check = await verifyToken(testDb(), secret);
  expect(check).toMatchObject({ ok: true, lastUsedAt: null });

  const old = new Date(Date.now() - 5 * 60_000);
  await testDb().updateTable('api_tokens').set({ last_used_at: old }).where('id', '=', id).execute();
  // what the lookup read says "noted 10 s ago": no statement, so the (older) stored value stays
  await touchToken(testDb(), id, new Date(Date.now() - 10_000));
  expect((await row()).last_used_at!.getTime()).toBe(old.getTime());

  const read = await verifyToken(testDb(), secret);
  expect(read.ok && read.lastUsedAt!.getTime()).toBe(old.getTime());
  await touchToken(testDb(), id, read.ok ? read.lastUsedAt : null);
  const { now } = await sql<{ now: Date }>`select now() as now`.execute(testDb()).then((r) => r.rows[0]);
  expect(Math.abs(now.getTime() - (await row()).last_used_at!.getTime())).toBeLessThan(5_000);
});
