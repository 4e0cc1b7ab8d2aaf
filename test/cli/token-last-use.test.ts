import { call, expectEnvelope, testDb, uid } from '../helpers/api.ts';
import { createToken } from '#shared/auth/tokens';
import { runScript } from './run.ts';

/** `npm run token -- list` shows when each token was last accepted. */
describe('npm run token -- list: last use', () => {
  test('never before use; the time of the first accepted request after it', async () => {
    const used = `cli-used-${uid()}`;
    const unused = `cli-unused-${uid()}`;
    const { token } = await createToken(testDb(), { name: used, role: 'viewer' });
    await createToken(testDb(), { name: unused, role: 'viewer' });
    expectEnvelope(await call('GET', '/notifications/count', { token }), 200);
    const row = await testDb().selectFrom('api_tokens').select('last_used_at').where('name', '=', used).executeTakeFirstOrThrow();

    const list = await runScript('token.ts', ['list']);
    expect(list.code).toBe(0);
    expect(list.stdout.split('\n')[0]).toMatch(/\bLAST_USED\b/);
    expect(list.stdout.split('\n').find((l) => l.includes(used))).toContain(row.last_used_at!.toISOString());
    expect(list.stdout.split('\n').find((l) => l.includes(unused))).toMatch(/\bnever\s+never\s+active$/);

    const json = JSON.parse((await runScript('token.ts', ['list', '--json'])).stdout) as { name: string; last_used: string }[];
    expect(json.find((t) => t.name === used)?.last_used).toBe(row.last_used_at!.toISOString());
    expect(json.find((t) => t.name === unused)?.last_used).toBe('never');
  });
});
