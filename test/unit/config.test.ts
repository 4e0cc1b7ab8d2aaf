import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { checkSettings, setting, SettingError } from '#shared/config/read';
import { load } from 'js-yaml';
import { SETTINGS } from '#shared/config/settings';
import type { Reader } from '#shared/config/spec';
import { HELP, parseConfig } from '#agent/runtime/config';

/**
 * The one table of settings (shared/config): every value is parsed by its entry, a bad one refused naming the
 * setting and what it allows — never a NaN or a silent default.
 */
describe('settings', () => {
  test('unset or blank gives the default; a value is parsed by its type', () => {
    expect(setting('HM_DB_POOL_MAX', {})).toBe(4);
    expect(setting('HM_DB_POOL_MAX', { HM_DB_POOL_MAX: ' ' })).toBe(4);
    expect(setting('HM_DB_POOL_MAX', { HM_DB_POOL_MAX: '12' })).toBe(12);
    expect(setting('HM_NOTIFY_BACKOFF_S', { HM_NOTIFY_BACKOFF_S: '0.3' })).toBe(0.3);
    expect(setting('HM_SSH_INSECURE_ACCEPT_ANY_HOST_KEY', { HM_SSH_INSECURE_ACCEPT_ANY_HOST_KEY: 'true' })).toBe(true);
    expect(setting('HM_SSH_INSECURE_ACCEPT_ANY_HOST_KEY', { HM_SSH_INSECURE_ACCEPT_ANY_HOST_KEY: '0' })).toBe(false);
    expect(setting('HM_SIM_PROFILE', { HM_SIM_PROFILE: 'freebsd-15.0' })).toBe('freebsd-15.0');
    expect(setting('HM_NOTIFY_ALLOW_CIDRS', { HM_NOTIFY_ALLOW_CIDRS: '10.0.0.0/8, 2001:db8::/32,192.0.2.7' })).toEqual([
      '10.0.0.0/8',
      '2001:db8::/32',
      '192.0.2.7',
    ]);
    expect(setting('HM_NOTIFY_ALLOW_CIDRS', {})).toEqual([]);
    expect(setting('HM_ADVERTISED_IP', {})).toBeUndefined();
    expect(setting('HM_ACME_DIRECTORY_URL', {})).toBe('https://acme-v02.api.letsencrypt.org/directory');
  });

  test.each([
    ['HM_DB_POOL_MAX', 'abc', 'HM_DB_POOL_MAX="abc" is not allowed: expected an integer 1–100'],
    ['HM_DB_POOL_MAX', '4.5', 'HM_DB_POOL_MAX="4.5" is not allowed: expected an integer 1–100'],
    ['HM_DB_QUERY_TIMEOUT_MS', '5s', 'HM_DB_QUERY_TIMEOUT_MS="5s" is not allowed: expected an integer 1–600000'],
    ['HM_HTTP_PORT', '70000', 'HM_HTTP_PORT="70000" is not allowed: expected an integer 1–65535'],
    ['HM_NOTIFY_BACKOFF_S', '1e3', 'HM_NOTIFY_BACKOFF_S="1e3" is not allowed: expected a number 0.01–86400'],
    ['HM_SSH_INSECURE_ACCEPT_ANY_HOST_KEY', 'on', 'HM_SSH_INSECURE_ACCEPT_ANY_HOST_KEY="on" is not allowed: expected true or false (1/0, yes/no)'],
    ['HM_SIM_PROFILE', 'freebsd-13', 'HM_SIM_PROFILE="freebsd-13" is not allowed: expected one of freebsd-14.3, freebsd-15.0'],
    ['HM_ADVERTISED_IP', 'leader.example', 'HM_ADVERTISED_IP="leader.example" is not allowed: expected an IP address literal'],
    ['HM_QUEUE_ENDPOINT', 'localhost:9324', 'HM_QUEUE_ENDPOINT="localhost:9324" is not allowed: expected an http(s) URL'],
    ['HM_AUTH_FAIL_EXEMPT_CIDRS', '10.0.0.0/33', 'HM_AUTH_FAIL_EXEMPT_CIDRS="10.0.0.0/33" is not allowed: expected CIDR ranges or addresses'],
    ['HM_QUEUE_PREFIX', 'my queue', 'HM_QUEUE_PREFIX="my queue" is not allowed: expected 1–30 of A–Z a–z 0–9 _ -'],
    ['HM_AGENT_PATH', 'bin:/usr/bin', 'HM_AGENT_PATH="bin:/usr/bin" is not allowed: expected absolute directories separated by ":"'],
  ] as const)('%s=%s is refused naming the setting and what it allows', (name, value, message) => {
    let err: unknown;
    try {
      setting(name, { [name]: value });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SettingError);
    expect((err as SettingError).setting).toBe(name);
    expect((err as Error).message).toContain(message);
  });

  test("a secret setting's bad value is never repeated in the error", () => {
    const url = 'mysql://hostmgr:s3cret-pw@db.example:3306/hostmgr';
    expect(() => setting('DATABASE_URL', { DATABASE_URL: url })).toThrow(
      'DATABASE_URL=(value not shown) is not allowed: expected a postgres:// or postgresql:// URL',
    );
    try {
      setting('DATABASE_URL', { DATABASE_URL: url });
    } catch (e) {
      expect((e as Error).message).not.toContain('s3cret');
    }
    // a setting that is no secret shows what was given
    expect(() => setting('HOSTMGR_URL', { HOSTMGR_URL: 'ftp://x' })).toThrow('HOSTMGR_URL="ftp://x"');
  });

  test("checkSettings reports every bad value of a reader's settings at once, and ignores other readers' settings", () => {
    expect(() => checkSettings('functions', {})).not.toThrow();
    expect(() => checkSettings('functions', { HM_SIM_PROFILE: 'nope' })).not.toThrow();
    let err: Error | undefined;
    try {
      checkSettings('functions', { HM_DB_POOL_MAX: 'x', HM_AUTH_FAIL_LIMIT: '-1', HM_HTTP_PORT: 'y' });
    } catch (e) {
      err = e as Error;
    }
    expect(err?.message.split('\n')).toEqual([expect.stringContaining('HM_DB_POOL_MAX="x"'), expect.stringContaining('HM_AUTH_FAIL_LIMIT="-1"')]);
    expect(() => checkSettings(['npm start', 'functions'], { HM_HTTP_PORT: 'y' })).toThrow('HM_HTTP_PORT="y"');
  });

  test('every entry is well-formed: a default within its own range, a description, a reader', () => {
    for (const [name, spec] of Object.entries(SETTINGS) as [string, (typeof SETTINGS)[keyof typeof SETTINGS]][]) {
      expect(name).toMatch(/^[A-Z][A-Z0-9_]+$/);
      expect(spec.description.length).toBeGreaterThan(5);
      expect(spec.readers.length).toBeGreaterThan(0);
      if ('default' in spec && spec.default !== undefined && spec.type !== 'flag')
        expect(() => setting(name as keyof typeof SETTINGS, { [name]: String(spec.default) })).not.toThrow();
    }
  });

  test("the agent's options are all in the table (agent/runtime/config.ts parses them with their flags)", () => {
    const source = readFileSync('agent/runtime/config.ts', 'utf8');
    const names = [...new Set([...source.matchAll(/\b(HM_[A-Z0-9_]+)\b/g)].map((m) => m[1]!))];
    expect(names.length).toBeGreaterThan(20);
    expect(names.filter((n) => !(n in SETTINGS))).toEqual([]);
  });

  test("the agent's --help names every option of the table with its flag and variable, and no other", () => {
    const options = Object.entries(SETTINGS).flatMap(([name, spec]) => ('flag' in spec ? [[name, spec.flag] as const] : []));
    expect(options.length).toBeGreaterThanOrEqual(29);
    for (const [name, flag] of options) {
      expect(HELP).toMatch(new RegExp(`--${flag}\\b`));
      expect(HELP).toContain(name);
    }
    const flagsInHelp = [...HELP.matchAll(/^\s+(?:\()?--([a-z-]+)/gm)].map((m) => m[1]).filter((f) => f !== 'help');
    expect(flagsInHelp.filter((f) => !options.some(([, flag]) => flag === f))).toEqual([]);
    // and parses them by the table: a range and a default it alone states
    expect(parseConfig(['--api-url', 'http://x/api', '--token', 't'], {}, () => '')).toMatchObject({
      concurrency: SETTINGS.HM_CONCURRENCY.default,
      ssh: { port: 22 },
    });
    expect(() => parseConfig(['--api-url', 'http://x/api', '--token', 't', '--poll-wait', '21'], {}, () => '')).toThrow(
      '--poll-wait (HM_POLL_WAIT): must be an integer 1–20, got "21"',
    );
    expect(() => parseConfig(['--api-url', 'http://x/api'], { HM_AGENT_TOKEN: 't', HM_QUEUE_URL: 'sqs' }, () => '')).toThrow(
      '--queue-url (HM_QUEUE_URL): must be an http(s) URL',
    );
  });

  test('product code reads no HM_ setting from the environment but through the table', () => {
    const found = spawnSync('grep', ['-rnE', String.raw`env(\.|\[')HM_[A-Z0-9_]+`, 'shared', 'functions', 'agent', 'simulator', '--include=*.ts'], {
      encoding: 'utf8',
    });
    const direct = found.stdout.split('\n').filter(Boolean);
    expect(direct).toEqual([]);
  });
});

describe("serverless.yml's environment block", () => {
  const block = (load(readFileSync('serverless.yml', 'utf8')) as { provider: { environment: Record<string, unknown> } }).provider.environment;
  const readBy = (reader: Reader) => Object.entries(SETTINGS).flatMap(([name, spec]) => ((spec.readers as readonly Reader[]).includes(reader) ? [name] : []));

  test("names every setting the functions read, and nothing the table does not list as the functions'", () => {
    const functions = readBy('functions');
    expect(functions.length).toBeGreaterThan(20);
    expect(functions.filter((n) => !(n in block))).toEqual([]);
    expect(Object.keys(block).filter((n) => !functions.includes(n))).toEqual([]);
  });

  test('a value taken from the deploy shell is taken from the variable of its own name (the local store URL aside)', () => {
    const crossed = Object.entries(block).flatMap(([name, value]) => {
      const from = typeof value === 'string' ? /\$\{env:([A-Z0-9_]+)/.exec(value)?.[1] : undefined;
      return from && from !== name ? [`${name} ← ${from}`] : [];
    });
    expect(crossed).toEqual(['DATABASE_URL ← HM_LOCAL_DATABASE_URL']);
  });

  test("every setting of `serverless deploy` (reader 'deploy') is read by serverless.yml or what it runs", () => {
    const deployFiles = ['serverless.yml', 'scripts/deploy/stage-guard.cjs', 'scripts/build/functions-yml.ts'];
    const text = deployFiles.map((f) => readFileSync(f, 'utf8')).join('\n');
    const deploy = readBy('deploy');
    expect(deploy.length).toBeGreaterThan(5);
    expect(deploy.filter((n) => !new RegExp(`\\b${n}\\b`).test(text))).toEqual([]);
  });
});
