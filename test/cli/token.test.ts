import { call, expectEnvelope, testDb, uid } from '../helpers/api.ts';
import { hashToken } from '#shared/auth/tokens';
import { runScript } from './run.ts';

/** `npm run token` as a real process against the test store; its tokens used over real HTTP. */
const SECRET = /\bhm_[A-Za-z0-9_-]{43}\b/;
const token = (...args: string[]) => runScript('token.ts', args);

describe('npm run token', () => {
  test('create prints the secret once; it works over HTTP with its role; revoke makes it 401', async () => {
    const name = `cli-${uid()}`;
    const created = await token('create', '--role', 'operator', '--name', name, '--expires', '30d');
    expect(created.code).toBe(0);
    const secret = SECRET.exec(created.stdout)![0];
    expect(created.stdout).toMatch(/shown only now/);
    const row = await testDb().selectFrom('api_tokens').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
    expect(row.role).toBe('operator');
    expect(row.token_hash).toBe(hashToken(secret));
    const days = (row.expires_at!.getTime() - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);

    expectEnvelope(await call('GET', '/notifications/count', { token: secret }), 200);
    expectEnvelope(await call('POST', '/notifications/dismiss-all', { token: secret }), 200); // operator may

    const list = await token('list');
    expect(list.code).toBe(0);
    const line = list.stdout.split('\n').find((l) => l.includes(name))!;
    expect(line).toMatch(new RegExp(`^${row.id}\\s+${name}\\s+operator\\s+.*\\bactive$`));
    expect(list.stdout).not.toMatch(SECRET);
    expect(list.stdout).not.toContain(row.token_hash);

    const revoked = await token('revoke', name);
    expect(revoked.code).toBe(0);
    expect(revoked.stdout).toContain(`revoked 1 token "${name}"`);
    const res = await call('GET', '/notifications/count', { token: secret });
    expectEnvelope(res, 401, 'unauthorized');
    expect(res.body.error).toBe('token revoked');
    expect((await token('list', '--json')).stdout).toContain(`"state": "revoked `);
  });

  test('revoke by id; a viewer token is refused operator work (403)', async () => {
    const name = `cli-${uid()}`;
    const created = await token('create', '--role', 'viewer', '--name', name);
    const secret = SECRET.exec(created.stdout)![0];
    expect(created.stdout).toContain('does not expire');
    expectEnvelope(await call('POST', '/notifications/dismiss-all', { token: secret }), 403, 'forbidden');
    const { id } = await testDb().selectFrom('api_tokens').select('id').where('name', '=', name).executeTakeFirstOrThrow();
    expect((await token('revoke', String(id))).code).toBe(0);
    expectEnvelope(await call('GET', '/notifications/count', { token: secret }), 401);
    const again = await token('revoke', String(id));
    expect(again.code).toBe(1);
    expect(again.stderr).toContain(`no active token with id or name "${id}"`);
  });

  test('an agent token is bound to its node and kept off operator endpoints', async () => {
    const name = `cli-agent-${uid()}`;
    const created = await token('create', '--role', 'agent', '--name', name, '--node', '7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01', '--expires', '2099-01-01');
    expect(created.code).toBe(0);
    const row = await testDb().selectFrom('api_tokens').selectAll().where('name', '=', name).executeTakeFirstOrThrow();
    expect(row).toMatchObject({ role: 'agent', node_id: '7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01' });
    expect(row.expires_at!.toISOString()).toBe('2099-01-01T00:00:00.000Z');
    expectEnvelope(await call('GET', '/notifications/count', { token: SECRET.exec(created.stdout)![0] }), 403);
  });

  test.each([
    [['create', '--role', 'root', '--name', 'x'], /--role must be one of viewer, operator, admin, agent \(got "root"\)/],
    [['create', '--role', 'viewer'], /--name is required/],
    [['create', '--role', 'agent', '--name', 'x'], /--node <node-id> is required for an agent token/],
    [['create', '--role', 'viewer', '--name', 'x', '--node', 'n1'], /--node applies to agent tokens only/],
    [['create', '--role', 'viewer', '--name', 'x', '--expires', 'soon'], /--expires "soon": expected a duration/],
    [['create', '--role', 'viewer', '--name', 'x', '--expires', '2001-01-01'], /--expires "2001-01-01" lies in the past/],
    [['rotate'], /unknown command "rotate"/],
  ])('usage error %j → exit 2, nothing created', async (args, message) => {
    const before = Number(
      (
        await testDb()
          .selectFrom('api_tokens')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    const res = await token(...args);
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(message);
    expect(res.stdout).not.toMatch(SECRET);
    const after = Number(
      (
        await testDb()
          .selectFrom('api_tokens')
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
    expect(after).toBe(before);
  });

  test('--help explains the commands and how to reach the local stack', async () => {
    const res = await token('--help');
    expect(res.code).toBe(0);
    expect(res.stdout).toContain('npm run token -- create --role <role> --name <name>');
    expect(res.stdout).toContain('DATABASE_URL=postgres://postgres:postgres@127.0.0.1:5433/postgres');
  });

  test('a store that cannot be reached is one clear error line', async () => {
    const res = await runScript('token.ts', ['list'], { DATABASE_URL: 'postgres://postgres:postgres@127.0.0.1:1/none', HM_DB_CONNECT_TIMEOUT_MS: '2000' });
    expect(res.code).toBe(1);
    expect(res.stderr).toMatch(/^error: .*ECONNREFUSED/m);
  });
});

describe('npm run migrate', () => {
  test('reports an up-to-date store', async () => {
    const res = await runScript('migrate.ts', []);
    expect(res.code).toBe(0);
    expect(res.stdout).toMatch(/is up to date/);
    expect((await runScript('migrate.ts', ['--help'])).stdout).toContain('npm run migrate');
  });
});

describe('npm run token: generate, --secret, and revocation is final', () => {
  test('generate prints one fresh well-formed secret and stores nothing', async () => {
    const before = await testDb()
      .selectFrom('api_tokens')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    const [a, b] = await Promise.all([token('generate'), token('generate')]);
    expect(a.code).toBe(0);
    expect(a.stdout.trim()).toMatch(/^hm_[A-Za-z0-9_-]{43}$/);
    expect(b.stdout.trim()).not.toBe(a.stdout.trim());
    const after = await testDb()
      .selectFrom('api_tokens')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .executeTakeFirstOrThrow();
    expect(Number(after.n)).toBe(Number(before.n));
    const row = await testDb().selectFrom('api_tokens').select('id').where('token_hash', '=', hashToken(a.stdout.trim())).executeTakeFirst();
    expect(row).toBeUndefined();
  });

  test('create --secret refuses a malformed secret with the expected format, without echoing it', async () => {
    const bad = 'hm_tooShort-secret-value';
    const res = await token('create', '--role', 'viewer', '--name', `cli-${uid()}`, '--secret', bad);
    expect(res.code).toBe(2);
    expect(res.stderr).toContain('--secret is not a well-formed token: it has 24 characters');
    expect(res.stderr).toContain('"hm_" followed by 43 base64url characters');
    expect(res.stderr).toContain('npm run token -- generate');
    expect(res.stderr + res.stdout).not.toContain(bad);
  });

  test('create --secret installs a generated secret; once revoked it cannot be installed again', async () => {
    const secret = (await token('generate')).stdout.trim();
    const name = `cli-${uid()}`;
    const created = await token('create', '--role', 'viewer', '--name', name, '--secret', secret);
    expect(created.code).toBe(0);
    expect(created.stdout).not.toContain(secret);
    expectEnvelope(await call('GET', '/notifications/count', { token: secret }), 200);
    expect((await token('revoke', name)).code).toBe(0);
    const again = await token('create', '--role', 'admin', '--name', name, '--secret', secret);
    expect(again.code).toBe(1);
    expect(again.stderr).toMatch(/--secret: this token \(id \d+\) was revoked; a revoked secret cannot be installed again/);
    const row = await testDb().selectFrom('api_tokens').selectAll().where('token_hash', '=', hashToken(secret)).executeTakeFirstOrThrow();
    expect(row.revoked_at).not.toBeNull();
    expect(row.role).toBe('viewer');
    expectEnvelope(await call('GET', '/notifications/count', { token: secret }), 401);
  });
});
