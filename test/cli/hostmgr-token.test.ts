import { execFile } from 'node:child_process';
import { adminToken, apiUrl, call, expectEnvelope, tokenFor, uid } from '../helpers/api.ts';

/** `hostmgr token create|list|revoke` as a user runs it, against the suite's stack. */
function hostmgr(args: string[], token = adminToken()): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'cli/main.ts', ...args],
      { env: { ...process.env, HOSTMGR_URL: apiUrl(), HOSTMGR_TOKEN: token, XDG_CONFIG_HOME: '/nonexistent' }, timeout: 60_000 },
      (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
    );
  });
}

const SECRET = /\bhm_[A-Za-z0-9_-]{43}\b/;

test('hostmgr token create prints the secret once; list never shows it; revoke makes it 401', async () => {
  const name = `cli-${uid()}`;
  const created = await hostmgr(['token', 'create', name, '--role', 'operator', '--expires', '7d']);
  expect(created.code).toBe(0);
  expect(created.stdout).toContain('shown only now');
  const secret = SECRET.exec(created.stdout)![0];
  const id = Number(/^id: +(\d+)$/m.exec(created.stdout)![1]);
  expectEnvelope(await call('GET', '/auth/whoami', { token: secret }), 200);

  const list = await hostmgr(['token', 'list']);
  expect(list.code).toBe(0);
  expect(list.stdout).toMatch(new RegExp(`^${id}\\s+${name}\\s+operator\\s.*active$`, 'm'));
  expect(list.stdout).not.toMatch(SECRET);

  const revoked = await hostmgr(['token', 'revoke', String(id)]);
  expect(revoked.code).toBe(0);
  expect(revoked.stdout).toMatch(/state: +revoked/);
  const res = await call('GET', '/auth/whoami', { token: secret });
  expectEnvelope(res, 401);
  expect(res.body.error).toBe('token revoked');

  const again = await hostmgr(['token', 'revoke', String(id)]);
  expect(again.code).toBe(1);
  expect(again.stderr).toContain('token_already_revoked');
});

test('an operator is refused (403); a bad --expires is refused before any request', async () => {
  const refused = await hostmgr(['token', 'list'], await tokenFor('operator'));
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('forbidden');
  const bad = await hostmgr(['token', 'create', 'x', '--role', 'viewer', '--expires', 'soon']);
  expect(bad.code).toBe(1);
  expect(bad.stderr).toContain('--expires "soon": expected a duration');
});
