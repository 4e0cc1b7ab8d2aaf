import { randomUUID } from 'node:crypto';
import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { admitAsMember, insertNode, startTestAgent, testJailHost, waitForTask, waitUntil, type TestAgent } from '../helpers/agent.ts';
import { freeGuestId } from '../http/jail-setup.ts';
import { HostSimulator } from '#simulator/simulator';
import type { SimHost } from '#shared/seed/host/schema';

/**
 * Snapshots of a guest's datasets end to end: the API checks names as ZFS does and refuses what zfs would
 * (holds, clones) or what it must not touch (a backup job's snapshot), says what a rollback destroys; the agent
 * runs zfs snapshot/rollback/destroy on the simulated host, whose state shows the result.
 */
let agent: TestAgent;
let operator: string;
let viewer: string;
let ctid: number;
let jobId: number;
let ds: string;
const snapsOnHost = (a: TestAgent) =>
  new HostSimulator({ statePath: a.statePath }).state((s) => s.datasets.filter((d) => d.type === 'snapshot' && d.name.startsWith(`${ds}@`)).map((d) => d.name));
const list = () => call('GET', `/guests/jail/${ctid}/snapshots`, { token: viewer });
const post = (what: string, body: unknown) => call('POST', `/guests/jail/${ctid}/snapshots${what}`, { token: operator, body });
const listed = async (name: string, present = true) =>
  waitUntil(`${name} ${present ? 'listed' : 'gone'}`, async () => {
    const names = (await list()).body.data.snapshots.map((s: { snapshot: string }) => s.snapshot);
    return names.includes(name) === present ? names : null;
  });

beforeAll(async () => {
  operator = await tokenFor('operator');
  viewer = await tokenFor('viewer');
  ctid = await freeGuestId();
  ds = `zroot/jails/snap${ctid}`;
  // a backup job first, so the host can carry one of its snapshots
  const runner = await insertNode(randomUUID(), { status: 'member' });
  const other = await insertNode(randomUUID(), { status: 'member' });
  const job = await call('POST', '/cluster/backups/jobs', {
    token: operator,
    body: { name: `snap-${ctid}`, nodeId: runner, source: { dataset: 'x/y' }, target: { nodeId: other, dataset: 'x/z' }, schedule: '0 3 1 1 *', retention: 2 },
  });
  expectEnvelope(job, 201);
  jobId = job.body.data.id;
  const host = testJailHost([{ ctid, name: `snap${ctid}`, dataset: ds, state: 'running' }]);
  const t0 = 1_700_000_000;
  host.datasets!.push(
    { name: `${ds}@a`, type: 'snapshot', usedBytes: 0, creation: t0 },
    { name: `${ds}@held`, type: 'snapshot', usedBytes: 0, creation: t0 + 1, holds: { keep: t0 } },
    { name: `${ds}@cloned`, type: 'snapshot', usedBytes: 0, creation: t0 + 2 },
    { name: `${ds}@hm-backup-${jobId}-20260101T000000Z`, type: 'snapshot', usedBytes: 0, creation: t0 + 3 },
    { name: `${ds}@b`, type: 'snapshot', usedBytes: 0, creation: t0 + 4 },
    { name: `${ds}@c`, type: 'snapshot', usedBytes: 0, creation: t0 + 5 },
    { name: 'zroot/jails/copy', type: 'filesystem', usedBytes: 0, mountpoint: '/zroot/jails/copy', properties: { origin: `${ds}@cloned` } },
  );
  agent = await startTestAgent({ host: host as SimHost });
  await agent.ready();
  await admitAsMember(agent);
  await waitUntil('the jail in the store', () => testDb().selectFrom('guests').select('id').where('id', '=', ctid).executeTakeFirst());
}, 90_000);

test('list: the jail dataset’s snapshots oldest first, with holds, clones and the backup job that owns one', async () => {
  const res = await list();
  expectEnvelope(res, 200, 'snapshots_listed');
  expect(res.body.data).toMatchObject({ type: 'jail', id: ctid, datasets: [ds] });
  const byName = Object.fromEntries(res.body.data.snapshots.map((s: { name: string }) => [s.name, s]));
  expect(Object.keys(byName)).toEqual(['a', 'held', 'cloned', `hm-backup-${jobId}-20260101T000000Z`, 'b', 'c']);
  expect(byName.held.holds).toEqual(['keep']);
  expect(byName.cloned.clones).toEqual(['zroot/jails/copy']);
  expect(byName[`hm-backup-${jobId}-20260101T000000Z`].backupJob).toBe(jobId);
  expectEnvelope(await call('GET', '/guests/jail/999999/snapshots', { token: viewer }), 404, 'jail_not_found');
});

test('create: names checked as ZFS checks them; the snapshot is taken on the host', async () => {
  for (const [name, problem] of [
    ['bad/name', 'invalid character "/"'],
    ['..', 'reserved by ZFS'],
    ['x%y', 'invalid character "%"'],
    [`hm-backup-${jobId}-x`, 'reserved for the backup jobs'],
    ['n'.repeat(250), 'ZFS names are at most 255'],
  ]) {
    const res = await post('', { name });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('body.name');
    expect(res.body.error).toContain(problem);
  }
  expectEnvelope(await post('', { name: 'a' }), 409, 'snapshot_exists');
  expectEnvelope(await call('POST', `/guests/jail/${ctid}/snapshots`, { token: viewer, body: { name: 'v' } }), 403);
  const res = await post('', { name: 'before upgrade:1' });
  expectEnvelope(res, 202, 'snapshot_create_queued');
  const task = await waitForTask(res.body.data.id, ['success', 'failed'], 20_000);
  expect(task.status).toBe('success');
  expect(await snapsOnHost(agent)).toContain(`${ds}@before upgrade:1`);
  await listed(`${ds}@before upgrade:1`);
});

test('destroy: refused naming the hold, the clone or the backup job; a plain one is destroyed on the host', async () => {
  const held = await post('/destroy', { snapshot: `${ds}@held` });
  expectEnvelope(held, 409, 'snapshot_protected');
  expect(held.body.error).toContain('"keep"');
  const cloned = await post('/destroy', { snapshot: `${ds}@cloned` });
  expectEnvelope(cloned, 409, 'snapshot_protected');
  expect(cloned.body.error).toContain('zroot/jails/copy');
  const backup = await post('/destroy', { snapshot: `${ds}@hm-backup-${jobId}-20260101T000000Z` });
  expectEnvelope(backup, 409, 'snapshot_protected');
  expect(backup.body.error).toContain(`backup job ${jobId}`);
  expectEnvelope(await post('/destroy', { snapshot: `${ds}@nope` }), 404, 'snapshot_not_found');
  expectEnvelope(await post('/destroy', { snapshot: 'zroot/other@a' }), 404, 'snapshot_not_found');

  const res = await post('/destroy', { snapshot: `${ds}@a` });
  expectEnvelope(res, 202, 'snapshot_destroy_queued');
  expect((await waitForTask(res.body.data.id, ['success', 'failed'], 20_000)).status).toBe('success');
  expect(await snapsOnHost(agent)).not.toContain(`${ds}@a`);
  await listed(`${ds}@a`, false);
});

test('rollback: to the newest at once; past newer ones only when asked, the answer naming what it destroys', async () => {
  const newest = (await list()).body.data.snapshots.at(-1).snapshot as string;
  const res = await post('/rollback', { snapshot: newest });
  expectEnvelope(res, 202, 'snapshot_rollback_queued');
  expect(res.body.data.destroys).toEqual([]);
  expect((await waitForTask(res.body.data.task.id, ['success', 'failed'], 20_000)).status).toBe('success');

  const refused = await post('/rollback', { snapshot: `${ds}@b` });
  expectEnvelope(refused, 409, 'snapshot_not_newest');
  expect(refused.body.data.wouldDestroy).toEqual([`${ds}@c`, `${ds}@before upgrade:1`]);
  // past the backup job's snapshot (and the held and cloned ones): refused, naming them
  const protectedOnes = await post('/rollback', { snapshot: `${ds}@held`, destroyNewer: true });
  expectEnvelope(protectedOnes, 409, 'snapshot_protected');
  expect(protectedOnes.body.error).toContain(`backup job ${jobId}`);

  const ok = await post('/rollback', { snapshot: `${ds}@b`, destroyNewer: true });
  expectEnvelope(ok, 202, 'snapshot_rollback_queued');
  expect(ok.body.data.destroys).toEqual([`${ds}@c`, `${ds}@before upgrade:1`]);
  const task = await waitForTask(ok.body.data.task.id, ['success', 'failed'], 20_000);
  expect(task.status).toBe('success');
  expect(task.result).toEqual({ snapshot: `${ds}@b`, destroyed: [`${ds}@c`, `${ds}@before upgrade:1`] });
  expect((await snapsOnHost(agent)).at(-1)).toBe(`${ds}@b`);
  await listed(`${ds}@c`, false);
});

test('hostmgr snapshot create/list/destroy follow their tasks and show the host’s snapshots', async () => {
  const { execFile } = await import('node:child_process');
  const { apiUrl } = await import('../helpers/api.ts');
  const hostmgr = (args: string[]) =>
    new Promise<{ code: number; stdout: string; stderr: string }>((resolve) =>
      execFile(
        process.execPath,
        ['--import', 'tsx', 'cli/main.ts', ...args],
        { env: { ...process.env, HOSTMGR_URL: apiUrl(), HOSTMGR_TOKEN: operator, XDG_CONFIG_HOME: '/nonexistent' }, timeout: 60_000 },
        (err, stdout, stderr) => resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, stdout, stderr }),
      ),
    );
  const created = await hostmgr(['snapshot', 'create', 'jail', String(ctid), 'from-cli']);
  expect(created.stderr).toBe('');
  expect(created.code).toBe(0);
  expect(created.stdout).toMatch(/snapshot_create_queued: task \d+/);
  expect(await snapsOnHost(agent)).toContain(`${ds}@from-cli`);
  await listed(`${ds}@from-cli`);
  const shown = await hostmgr(['snapshot', 'list', 'jail', String(ctid)]);
  expect(shown.code).toBe(0);
  expect(shown.stdout).toMatch(new RegExp(`${ds}@held\\s.*\\bkeep\\b`));
  expect(shown.stdout).toContain(`${ds}@from-cli`);
  const refused = await hostmgr(['snapshot', 'destroy', 'jail', String(ctid), `${ds}@held`]);
  expect(refused.code).toBe(1);
  expect(refused.stderr).toContain('snapshot_protected');
  const rolled = await hostmgr(['snapshot', 'rollback', 'jail', String(ctid), `${ds}@b`, '--destroy-newer']);
  expect(rolled.code).toBe(0);
  expect(rolled.stdout).toContain(`destroys: ${ds}@from-cli`);
  expect(await snapsOnHost(agent)).not.toContain(`${ds}@from-cli`);
});
