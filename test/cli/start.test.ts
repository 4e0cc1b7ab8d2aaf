import { execFile } from 'node:child_process';
import { generateToken } from '#shared/auth/tokens';
import { createToken, revokeToken } from '#shared/auth/tokens';
import { testDb, uid } from '../helpers/api.ts';
import { freePort } from '#scripts/stack/ports';
import type { CliResult } from './run.ts';

/** `npm start` refuses a bad environment before it serves anything, saying what to do. */
async function start(env: NodeJS.ProcessEnv): Promise<CliResult> {
  const ports = {
    HM_HTTP_PORT: String(await freePort()),
    HM_LAMBDA_PORT: String(await freePort()),
    HM_PGLITE_PORT: String(await freePort()),
    HM_QUEUE_PORT: String(await freePort()),
  };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'scripts/start.ts'],
      { env: { ...process.env, ...ports, HM_AGENT_NODE: 'none', ...env }, timeout: 120_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

test('a malformed HM_ADMIN_TOKEN stops npm start with the format and how to generate one, never echoing it', async () => {
  const bad = 'hm_not-a-real-token';
  const res = await start({ HM_ADMIN_TOKEN: bad });
  expect(res.code).toBe(2);
  expect(res.stderr).toContain('HM_ADMIN_TOKEN is not a well-formed token: it has 19 characters');
  expect(res.stderr).toContain('"hm_" followed by 43 base64url characters');
  expect(res.stderr).toContain('npm run token -- generate');
  expect(res.stdout + res.stderr).not.toContain(bad);
  expect(res.stdout).not.toContain('control plane is up');
});

test("every bad setting is reported at once, the functions' too", async () => {
  const res = await start({ HM_ADMIN_TOKEN: 'x'.repeat(46), HM_HTTP_PORT: '70000', HM_SEED: '/nonexistent/seed.json', HM_AUTH_FAIL_LIMIT: 'ten' });
  expect(res.code).toBe(2);
  expect(res.stderr).toContain('HM_ADMIN_TOKEN is not a well-formed token: it does not start with "hm_"');
  expect(res.stderr).toContain('HM_HTTP_PORT="70000" is not allowed: expected an integer 1–65535');
  // a setting of the functions it serves is checked before anything starts, not at the first request reading it
  expect(res.stderr).toContain('HM_AUTH_FAIL_LIMIT="ten" is not allowed: expected an integer 1–1000000');
  expect(res.stderr).toContain('HM_SEED=/nonexistent/seed.json: no such file');
});

test('a revoked HM_ADMIN_TOKEN stops npm start: restarting never un-revokes it', async () => {
  const secret = generateToken();
  const { id } = await createToken(testDb(), { name: `admin ${uid()}`, role: 'admin', secret });
  await revokeToken(testDb(), String(id));
  const res = await start({ HM_ADMIN_TOKEN: secret, DATABASE_URL: process.env.HM_TEST_DATABASE_URL });
  expect(res.code).toBe(1);
  expect(res.stderr).toContain(`HM_ADMIN_TOKEN is revoked (token id ${id}); revocation is final`);
  expect(res.stderr).toContain('npm run token -- generate');
  expect(res.stdout + res.stderr).not.toContain(secret);
  expect(res.stdout).not.toContain('control plane is up');
  const row = await testDb().selectFrom('api_tokens').select('revoked_at').where('id', '=', id).executeTakeFirstOrThrow();
  expect(row.revoked_at).not.toBeNull();
}, 120_000);
