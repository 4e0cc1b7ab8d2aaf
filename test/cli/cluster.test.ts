import { createHash } from 'node:crypto';
import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { arrangeNode } from '../http/jail-setup.ts';
import { runScript } from './run.ts';

/** `npm run cluster -- key …` as a real process against the test store; E16 then accepts only the new key. */
const cluster = (...args: string[]) => runScript('cluster.ts', args);
const KEY = /^ {2}(hmc_[A-Za-z0-9_-]{43})$/m;

describe('npm run cluster -- key', () => {
  test('rotate prints a new key once, the store keeps its SHA-256, and E16 takes the new key but no longer the old one', async () => {
    const status = await cluster('key', 'status');
    expect(status.code).toBe(0);
    expect(status.stdout).toMatch(/a cluster key is set in .* \(last rotated \d{4}-\d{2}-\d{2}T/); // the stack created one at its start

    const first = await cluster('key', 'rotate');
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const old = KEY.exec(first.stdout)![1];
    const second = await cluster('key', 'rotate');
    const key = KEY.exec(second.stdout)![1];
    expect(key).not.toBe(old);
    expect((await testDb().selectFrom('cluster_settings').select('key_hash').executeTakeFirstOrThrow()).key_hash).toBe(
      createHash('sha256').update(key).digest('hex'),
    );
    // status never shows the key
    expect((await cluster('key', 'status')).stdout).not.toContain(key);

    const admin = await tokenFor('admin');
    const node = await arrangeNode({ status: 'pending', ip: '198.51.100.40' });
    const body = (clusterKey: string) => ({ clusterKey, leaderIp: '127.0.0.1', nodeId: node, nodeIp: '198.51.100.40' });
    expectEnvelope(await call('POST', '/cluster/join', { token: admin, body: body(old) }), 403, 'cluster_key_mismatch');
    expectEnvelope(await call('POST', '/cluster/join', { token: admin, body: body(key) }), 200, 'cluster_joined');
  }, 60_000);

  test('usage errors exit 2 and say what is expected', async () => {
    const none = await cluster('key');
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('expected rotate or status');
    const other = await cluster('nodes');
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('unknown command "nodes": expected key');
    const help = await cluster('--help');
    expect(help.code).toBe(0);
    expect(help.stdout).toContain('npm run cluster -- key rotate');
  }, 60_000);
});
