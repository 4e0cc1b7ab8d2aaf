import { randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';
import { runScript } from './run.ts';

/** `npm run seed` as a real process against the test store, and the demo seed on a fresh store. */
const dir = mkdtempSync(join(tmpdir(), 'hm-seed-cli-'));
const seed = (...args: string[]) => runScript('seed.ts', args);

describe('npm run seed', () => {
  test('loads a file, then loading it again adds nothing', async () => {
    const T = uid();
    const node = randomUUID();
    const file = join(dir, `lab-${T}.json`);
    writeFileSync(
      file,
      JSON.stringify({
        $schema: '../shared/seed/seed.schema.json',
        nodes: [{ id: node, name: `lab-${T}`, ip: '10.4.0.1' }],
        backupJobs: [{ name: `lab-job-${T}`, nodeId: node, sourceDataset: 'tank/vm/web01', targetEndpoint: 'backup@10.0.0.50:vault/web01' }],
        backupEvents: [
          { job: `lab-job-${T}`, status: 'success', createdAt: '-2h' },
          { job: `lab-job-${T}`, status: 'failed', createdAt: '-1h', error: 'boom' },
        ],
      }),
    );
    const first = await seed(file);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    // rule synchronisation is store-wide: pairs other test files left behind may be counted as well
    expect(first.stdout).toMatch(/^loaded .*: nodes 1, (rulesSynchronised \d+, )?backupJobs 1, backupEvents 2$/m);
    const res = await call('GET', `/cluster/backups/events/remote?nodeId=${node}`, { token: await tokenFor('viewer') });
    expectEnvelope(res, 200);
    expect(res.body.data.data.map((e: { status: string }) => e.status)).toEqual(['failed', 'success']);

    const second = await seed(file);
    expect(second.code).toBe(0);
    expect(second.stdout).toMatch(/backupEventsSkipped 2/);
    expect(await testDb().selectFrom('backup_events').select('id').where('node_id', '=', node).execute()).toHaveLength(2);
  });

  test('an invalid file exits 1 naming every bad field; nothing is loaded', async () => {
    const node = randomUUID();
    const file = join(dir, 'invalid.json');
    writeFileSync(
      file,
      JSON.stringify({
        nodes: [{ id: node, name: 'x', status: 'leader' }],
        backupJobs: [{ name: 'j', nodeId: node, sourceDataset: 'a' }],
      }),
    );
    const res = await seed(file);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain(`seed ${file} is invalid:`);
    expect(res.stderr).toContain('nodes[0].status: must be one of "pending", "member"');
    expect(res.stderr).toContain('backupJobs[0].targetEndpoint: is required');
    expect(await testDb().selectFrom('nodes').select('id').where('id', '=', node).execute()).toEqual([]);
    const check = await seed('--check', file);
    expect(check.code).toBe(1);
    expect(check.stderr).toContain('backupJobs[0].targetEndpoint: is required');
  });

  test('--check accepts the demo; usage errors exit 2', async () => {
    const ok = await seed('--check', 'shared/seed/demo.json');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('shared/seed/demo.json is a valid seed file');
    const none = await seed();
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('name exactly one seed file');
  });

  test('the demo seed fills an empty store once (npm start)', async () => {
    const res = await runScript('../test/cli/demo-seed-runner.ts', [], { DATABASE_URL: '' });
    expect(res.stderr).toBe('');
    const out = JSON.parse(res.stdout.trim().split('\n').at(-1)!);
    expect(out.first).toBe(true);
    expect(out.second).toBe(false);
    expect(out.nodes).toEqual([
      { id: '7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01', name: 'fbsd-01', ip: '127.0.0.1', status: 'member' },
      { id: '3b9e6a14-8c2d-4f7a-b5e1-6d0c9f2a7b83', name: 'fbsd-02', ip: '127.0.0.12', status: 'pending' },
      { id: 'c41d2e7a-9b3f-4e1a-8d25-6f0e7a9b1c03', name: 'fbsd-03', ip: '127.0.0.13', status: 'member' },
    ]);
    expect(out.notes).toBe(4);
    expect(out.notifications).toBe(6);
    expect(out.activeGlobal).toBe(3);
    expect(out.activeNode).toBe(2);
    expect(out.templates).toEqual(['backup_failed', 'certificate_expiring', 'pool_degraded', 'task_failed']);
    expect(out.targets).toBe(11);
    // 3 auto rules and 1 custom in the file, 7 auto ones synchronised, 1 tombstone
    expect(out.rules).toEqual([
      { kind: 'auto', n: 10, deleted: 1 },
      { kind: 'custom', n: 1, deleted: 0 },
    ]);
    // every demo job runs, each to fbsd-03 (a disabled one has no next slot)
    const F3 = 'c41d2e7a-9b3f-4e1a-8d25-6f0e7a9b1c03';
    expect(out.jobs).toBe(6);
    expect(out.runnable).toEqual([
      { name: 'home-weekly', target_node_id: F3, target_dataset: 'vault/replicas/fbsd-01/home', retention: 7, due: false },
      { name: 'jail-101-nightly', target_node_id: F3, target_dataset: 'vault/replicas/fbsd-01/jail-101', retention: 7, due: true },
      { name: 'jail-102-nightly', target_node_id: F3, target_dataset: 'vault/replicas/fbsd-01/jail-102', retention: 7, due: true },
      { name: 'usr-src-replica', target_node_id: F3, target_dataset: 'vault/replicas/fbsd-01/src', retention: 5, due: true },
      { name: 'vm-db01-offsite', target_node_id: F3, target_dataset: 'vault/replicas/fbsd-01/vm-db01', retention: 7, due: true },
      { name: 'vm-web01-hourly', target_node_id: F3, target_dataset: 'vault/replicas/fbsd-01/vm-web01', retention: 7, due: true },
    ]);
    expect(out.events).toEqual([
      { status: 'failed', n: 4 },
      { status: 'interrupted', n: 1 },
      { status: 'queued', n: 1 },
      { status: 'running', n: 1 },
      { status: 'success', n: 43 },
    ]);
    expect(out.counted).toBe(50);
  }, 60_000);
});
