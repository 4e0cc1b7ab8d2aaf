import { spawnSync } from 'node:child_process';
import { createLogger, REDACTED, redact } from '#shared/log/logger';

/** The one logger (shared/log): a JSON line per event, and no secret on any line. */
const capture = (o: Parameters<typeof createLogger>[0] = {}) => {
  const lines: Record<string, unknown>[] = [];
  const log = createLogger({ ...o, write: (l) => void lines.push(JSON.parse(l)) });
  return { log, lines };
};

describe('logger', () => {
  test('one JSON object per line: level and msg first, then the fields; levels below the minimum dropped', () => {
    const { log, lines } = capture({ base: { component: 'agent' } });
    log.debug('hidden');
    log.info('task sweep', { sent: 2 });
    log.child({ nodeId: 'n1' }).warn('heartbeat sweep failed', { cause: 'timeout' });
    expect(lines).toEqual([
      { level: 'info', msg: 'task sweep', component: 'agent', sent: 2 },
      { level: 'warn', msg: 'heartbeat sweep failed', component: 'agent', nodeId: 'n1', cause: 'timeout' },
    ]);
    expect(Object.keys(lines[0]!).slice(0, 2)).toEqual(['level', 'msg']);
    const timed = capture({ time: true, minLevel: 'debug' });
    timed.log.debug('x');
    expect(timed.lines[0]).toEqual({ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), level: 'debug', msg: 'x' });
  });

  test('fields named like secrets are replaced, at any depth; identifiers stay', () => {
    const { log, lines } = capture();
    log.error('request', {
      tokenId: 7,
      token: 'hm_x',
      body: { password: 'hunter2', encryptionKey: 'k', cloudInit: { userData: '#cloud-config\npassword: p' }, nested: [{ secret: 's' }] },
      authorization: 'Bearer abc',
    });
    const text = JSON.stringify(lines);
    for (const secret of ['hunter2', '"k"', 'cloud-config', '"s"', 'Bearer abc', 'hm_x']) expect(text).not.toContain(secret);
    expect(lines[0]).toMatchObject({ tokenId: 7, token: REDACTED, authorization: REDACTED, body: { password: REDACTED, nested: [{ secret: REDACTED }] } });
  });

  test('tokens, cluster keys and PEM private keys inside any text are replaced, the message included', () => {
    const token = `hm_${'A'.repeat(43)}`;
    const key = `hmc_${'b'.repeat(43)}`;
    const pem = '-----BEGIN PRIVATE KEY-----\nMIIEvQIBADANBg\n-----END PRIVATE KEY-----';
    const { log, lines } = capture();
    log.warn(`refused ${token}`, { cause: new Error(`bad key ${key}`), detail: `got ${pem} here` });
    const text = JSON.stringify(lines);
    for (const secret of [token, key, 'MIIEvQIBADANBg']) expect(text).not.toContain(secret);
    expect(lines[0]).toEqual({ level: 'warn', msg: `refused ${REDACTED}`, cause: `bad key ${REDACTED}`, detail: `got ${REDACTED} here` });
    expect(redact({ password: '' })).toEqual({ password: '' });
  });

  test('product code writes no hand-made JSON log line: every line goes through the logger', () => {
    const found = spawnSync(
      'grep',
      ['-rnE', String.raw`console\.(log|error|warn)\(JSON\.stringify|JSON\.stringify\(\{ *(time|level)`, 'shared', 'functions', 'agent', '--include=*.ts'],
      {
        encoding: 'utf8',
      },
    );
    expect(found.stdout.split('\n').filter(Boolean)).toEqual([]);
  });
});
