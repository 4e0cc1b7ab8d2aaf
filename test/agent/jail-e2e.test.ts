// @tier e2e
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { getTaskRow, hostKeyFile, startTestAgent, testJailHost, waitForTask, waitUntil, type TestAgent, admitAsMember } from '../helpers/agent.ts';
import { peerViaSshd, startSshd, type Sshd } from './sshd-server.ts';
import { HostSimulator } from '#simulator/simulator';
import { findSimJail } from '#simulator/commands/jail-model';
import { noHooks } from '#shared/agent-api/jail-hooks';
import { freeGuestId } from '../http/jail-setup.ts';
import type { SimHost } from '#shared/seed/host/schema';

/**
 * E3, E4 and E20 end to end: HTTP → store → queue → agent processes → simulated hosts, with the migration's
 * ZFS streams carried by a real sshd on 127.0.0.1 into the simulator CLI of the target host.
 */
const MiB = 2 ** 20;
/** web has a memory limit: A and B boot with RACCT on, as an operator sets it up (GENERIC's default is off) */
const RACCT_ON = { '/boot/loader.conf': { content: 'kern.racct.enable=1\n', mode: '644' } };

let sshd: Sshd;
let a: TestAgent;
let b: TestAgent;
/** a target whose registered host key is not the one sshd presents at its address */
let c: TestAgent;
let operator: string;
const ids = { web: 0, db: 0, big: 0 };

const sim = (agent: TestAgent) => new HostSimulator({ statePath: agent.statePath });
const jailOn = (agent: TestAgent, name: string) => sim(agent).state((s) => findSimJail(s, name));
const filesOf = (agent: TestAgent) => sim(agent).state((s) => (s as SimHost & { files?: Record<string, { content: string }> }).files ?? {});
const datasetsOf = (agent: TestAgent) => sim(agent).state((s) => s.datasets.map((d) => d.name));
const guest = (id: number) => testDb().selectFrom('guests').selectAll().where('id', '=', id).executeTakeFirst();

/** the host's sshd public key, where ssh-keygen -l reads it at registration */
beforeAll(async () => {
  sshd = await startSshd();
  operator = await tokenFor('operator');
  ids.web = await freeGuestId();
  ids.db = await freeGuestId();
  ids.big = await freeGuestId();
  // B's host key is the one sshd presents: what the source pins when it connects to B
  b = await startTestAgent({
    host: testJailHost([], { ...hostKeyFile(readFileSync(join(sshd.dir, 'host_key.pub'), 'utf8')), ...RACCT_ON }),
    args: ['--node-ip', '127.0.0.1'],
  });
  const other = join(sshd.dir, 'other_key');
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'other', '-f', other]);
  c = await startTestAgent({ host: testJailHost([], hostKeyFile(readFileSync(`${other}.pub`, 'utf8'))), args: ['--node-ip', '127.0.0.1'] });
  // the target "host" behind sshd: every command runs through the simulator CLI on B's state file
  const peer = peerViaSshd(sshd, b.statePath);
  a = await startTestAgent({
    host: testJailHost(
      [
        {
          ctid: ids.web,
          name: 'web',
          dataset: 'zroot/jails/web',
          state: 'running',
          hooks: { poststart: { enabled: true, script: 'logger web up' } },
          memoryBytes: 256 * MiB,
        },
        { ctid: ids.db, name: 'db', dataset: 'zroot/jails/db', state: 'stopped' },
        { ctid: ids.big, name: 'big', dataset: 'zroot/jails/big', state: 'running' },
      ],
      RACCT_ON,
    ),
    args: ['--node-ip', '127.0.0.1', ...peer],
    // a simulated send of the 1 GiB jail streams 8 MiB at 4 MiB/s: two seconds to cut it off in
    env: { HM_SIM_SEND_MAX_BYTES: String(8 * MiB), HM_SIM_STREAM_BYTES_PER_S: String(4 * MiB) },
  });
  await Promise.all([a.ready(), b.ready(), c.ready()]);
  await Promise.all([admitAsMember(a), admitAsMember(b), admitAsMember(c)]);
}, 90_000);

afterAll(async () => {
  await a?.kill();
  await b?.kill();
  await c?.kill();
  await sshd?.stop();
});

test('inventory: the agent reports its jails and the store holds them', async () => {
  const row = await waitUntil('web projected', () => guest(ids.web));
  expect(row).toMatchObject({ type: 'jail', node_id: a.nodeId, name: 'web', state: 'running' });
  const cfg = row.config as any;
  expect(cfg).toMatchObject({ dataset: 'zroot/jails/web', path: '/zroot/jails/web', memoryBytes: 256 * MiB, cores: null, cpuSet: [] });
  expect(cfg.hooks.poststart).toEqual({ enabled: true, script: 'logger web up' });
  expect(cfg.host.jid).toBeGreaterThan(0);
  expect(await guest(ids.db)).toMatchObject({ node_id: a.nodeId, state: 'stopped' });
});

test('E3: hooks are written and wired on the host, and run on the next stop/start', async () => {
  const hooks = { ...noHooks(), prestart: { enabled: true, script: 'echo pre' }, stop: { enabled: true, script: 'echo stopping' } };
  const res = await call('PUT', `/jail/${ids.web}/options/lifecycle-hooks`, { token: operator, body: { hooks } });
  expectEnvelope(res, 200, 'jail_hooks_updated');
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed']);
  expect(task.status).toBe('success');

  const files = await filesOf(a);
  const conf = files['/etc/jail.conf.d/web.conf'].content;
  expect(conf).toContain(`exec.prestart += "/usr/local/etc/hostmgr/jails/${ids.web}/hooks/prestart.sh";`);
  // the stop hook is a host file too, fed to the jail through jexec at the end of exec.prestop
  expect(conf).toContain(`exec.prestop += "/usr/sbin/jexec -l web /bin/sh < /usr/local/etc/hostmgr/jails/${ids.web}/hooks/stop.sh";`);
  expect(conf).not.toContain('hooks/poststart.sh');
  expect(files[`/usr/local/etc/hostmgr/jails/${ids.web}/hooks/poststart.sh`]).toBeUndefined();
  expect(files[`/usr/local/etc/hostmgr/jails/${ids.web}/hooks/stop.sh`].content).toContain('echo stopping');
  // the running jail was not restarted by the change
  const before = (await jailOn(a, 'web'))!;
  expect(before.state).toBe('running');
  const ranBefore = before.hookRuns?.length ?? 0;

  const s = sim(a);
  expect((await s.run(['jail', '-f', '/etc/jail.conf.d/web.conf', '-r', 'web'])).code).toBe(0);
  expect((await s.run(['jail', '-f', '/etc/jail.conf.d/web.conf', '-c', 'web'])).code).toBe(0);
  const runs = (await jailOn(a, 'web'))!.hookRuns!.slice(ranBefore).map((r) => `${r.phase} ${r.command}`);
  expect(runs).toEqual(
    expect.arrayContaining([
      `prestop /bin/sh -c /usr/sbin/jexec -l web /bin/sh < /usr/local/etc/hostmgr/jails/${ids.web}/hooks/stop.sh`,
      `prestart /usr/local/etc/hostmgr/jails/${ids.web}/hooks/prestart.sh`,
    ]),
  );
  expect(runs.some((r) => r.includes('poststart.sh'))).toBe(false);
});

test('E4: a running jail is pinned at once; a stopped one only gets its post-start limits; both are re-applied at agent start', async () => {
  let res = await call('PUT', `/jail/${ids.web}/hardware/cpu`, { token: operator, body: { cores: 2 } });
  expectEnvelope(res, 200, 'jail_cpu_updated');
  expect(res.body.data).toEqual({ cores: 2, cpuSet: [0, 1], ctId: ids.web, memory: 256 * MiB, resourceLimits: true });
  expect((await waitForTask((await lastTask(ids.web)).id, ['success', 'failed'])).status).toBe('success');
  expect((await jailOn(a, 'web'))!.affinity).toEqual([0, 1]);

  // CPUs 0 and 1 are now taken by web: db gets the least-used ones
  res = await call('PUT', `/jail/${ids.db}/hardware/cpu`, { token: operator, body: { cores: 1 } });
  expect(res.body.data.cpuSet).toEqual([2]);
  expect((await waitForTask((await lastTask(ids.db)).id, ['success', 'failed'])).status).toBe('success');
  expect((await jailOn(a, 'db'))!.state).toBe('stopped');
  expect((await jailOn(a, 'db'))!.affinity).toBeUndefined();
  expect((await filesOf(a))[`/usr/local/etc/hostmgr/jails/${ids.db}/limits.sh`].content).toContain('cpuset -l 2 -j db');

  // a host reboot (or a hand) resets web's CPUs; the agent re-applies the persisted limit when it starts
  await sim(a).state((s) => void (findSimJail(s, 'web')!.affinity = [0, 1, 2, 3]));
  const lastBefore = (await lastTask(ids.web)).id;
  await a.stop();
  a = await a.restart();
  await a.ready();
  await waitUntil('web pinned again', async () => JSON.stringify((await jailOn(a, 'web'))!.affinity) === '[0,1]');
  const reapplied = await testDb()
    .selectFrom('tasks')
    .select(['kind', 'status', 'requested_by'])
    .where('resource', '=', `jail:${ids.web}`)
    .where('requested_by', '=', 'agent-start')
    .where('id', '>', lastBefore)
    .execute();
  expect(reapplied.map((t) => t.kind).sort()).toEqual(['jail.apply-hooks', 'jail.apply-limits']);
}, 60_000);

const lastTask = async (ctid: number) =>
  testDb().selectFrom('tasks').selectAll().where('resource', '=', `jail:${ctid}`).orderBy('id', 'desc').executeTakeFirstOrThrow();

test('E20: the jail moves to the target over SSH, reporting its phases; the store and both hosts agree', async () => {
  const res = await call('POST', `/jail/${ids.web}/migrations`, { token: operator, body: { targetNodeUuid: b.nodeId } });
  expectEnvelope(res, 202, 'jail_migration_queued');
  expect(res.body.data).toEqual({ guestId: ids.web, outcome: 'queued', taskId: expect.any(Number) });
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed', 'interrupted'], 45_000);
  expect(task.error).toBe('');
  expect(task.status).toBe('success');
  for (const phase of [
    'preparing',
    'initial full send',
    'stopping the jail',
    'final incremental send',
    'copying the jail configuration',
    'starting on the target',
  ]) {
    expect(task.output).toContain(`phase: ${phase}`);
  }
  expect(task.result).toMatchObject({ ctid: ids.web, targetNodeId: b.nodeId, state: 'running' });

  // store: the guest belongs to the target, with its persisted configuration
  const row = (await guest(ids.web))!;
  expect(row).toMatchObject({ node_id: b.nodeId, state: 'running' });
  expect((row.config as any).cpuSet).toEqual([0, 1]);
  const view = await call('GET', `/jail/${ids.web}`, { token: operator });
  expect(view.body.data.nodeId).toBe(b.nodeId);

  // target host: dataset, conf, hooks; running, pinned by its post-start limits
  const onB = (await jailOn(b, 'web'))!;
  expect(onB.state).toBe('running');
  expect(onB.affinity).toEqual([0, 1]);
  expect(await sim(b).state((s) => s.rctlRules)).toEqual([`jail:web:memoryuse:deny=${256 * MiB}`]);
  expect(await datasetsOf(b)).toContain('zroot/jails/web');
  expect(Object.keys(await filesOf(b))).toEqual(
    expect.arrayContaining([
      '/etc/jail.conf.d/web.conf',
      `/usr/local/etc/hostmgr/jails/${ids.web}/hooks/prestart.sh`,
      `/usr/local/etc/hostmgr/jails/${ids.web}/hooks/stop.sh`,
    ]),
  );
  // source host: nothing left
  expect((await jailOn(a, 'web'))!.state).toBe('stopped');
  expect(await datasetsOf(a)).not.toContain('zroot/jails/web');
  expect((await filesOf(a))['/etc/jail.conf.d/web.conf']).toBeUndefined();
  // and E3/E4 now go to the target's agent
  const hooks = await call('PUT', `/jail/${ids.web}/options/lifecycle-hooks`, { token: operator, body: { hooks: noHooks() } });
  expectEnvelope(hooks, 200);
  const t = await waitForTask(hooks.body.data.taskId, ['success', 'failed']);
  expect(t).toMatchObject({ node_id: b.nodeId, status: 'success' });
  expect((await filesOf(b))['/etc/jail.conf.d/web.conf'].content).not.toContain('hooks/prestart.sh');
}, 60_000);

test('each node registers the SHA256 fingerprints of its SSH host keys', async () => {
  const keys = await testDb().selectFrom('nodes').select(['id', 'ssh_host_keys']).where('id', 'in', [b.nodeId, c.nodeId]).execute();
  expect(keys.find((k) => k.id === b.nodeId)!.ssh_host_keys).toEqual([sshd.hostKeySha256]);
  expect(keys.find((k) => k.id === c.nodeId)!.ssh_host_keys).toEqual([expect.stringMatching(/^SHA256:[A-Za-z0-9+/]{43}$/)]);
  expect(keys.find((k) => k.id === c.nodeId)!.ssh_host_keys).not.toEqual([sshd.hostKeySha256]);
});

test('E20: a target presenting another host key than its node registered: the migration fails naming the mismatch, nothing moves', async () => {
  const res = await call('POST', `/jail/${ids.db}/migrations`, { token: operator, body: { targetNodeUuid: c.nodeId } });
  expectEnvelope(res, 202, 'jail_migration_queued');
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed', 'interrupted'], 45_000);
  expect(task.status).toBe('failed');
  expect(task.error).toContain(`SSH host key mismatch for 127.0.0.1:${sshd.port}: the server presented ${sshd.hostKeySha256}`);
  expect(task.error).toContain('undone: the jail stays on this node');
  expect((await guest(ids.db))!.node_id).toBe(a.nodeId);
  expect(await datasetsOf(a)).toContain('zroot/jails/db');
  // nothing was run on the host behind sshd (B's state stands in for it)
  expect(await datasetsOf(b)).not.toContain('zroot/jails/db');
}, 60_000);

test('E20: the source agent killed mid-transfer → task interrupted, the jail runs on the source only, nothing half-registered', async () => {
  const res = await call('POST', `/jail/${ids.big}/migrations`, { token: operator, body: { targetNodeUuid: b.nodeId } });
  expectEnvelope(res, 202);
  const taskId = res.body.data.taskId as number;
  await waitUntil('the initial send to be under way', async () => (await getTaskRow(taskId)).phase === 'initial full send', 20_000, 50);
  await new Promise((r) => setTimeout(r, 500));
  expect((await getTaskRow(taskId)).status).toBe('running');
  await a.kill();

  a = await a.restart();
  await a.ready();
  const task = await waitForTask(taskId, ['interrupted', 'success', 'failed'], 20_000);
  expect(task.status).toBe('interrupted');
  // the recovery undid the migration: journal gone, migration snapshots gone
  await waitUntil('the cut-off migration undone', async () => !(await filesOf(a))[`/var/db/hostmgr/jail-migrations/${ids.big}.json`], 20_000);
  expect((await datasetsOf(a)).filter((d) => d.startsWith('zroot/jails/big'))).toEqual(['zroot/jails/big']);

  // exactly one host runs it: the source
  expect((await jailOn(a, 'big'))!.state).toBe('running');
  expect(await jailOn(b, 'big')).toBeUndefined();
  expect((await datasetsOf(b)).filter((d) => d.startsWith('zroot/jails/big'))).toEqual([]);
  expect(Object.keys(await filesOf(b)).filter((f) => f.includes('big') || f.includes(`/${ids.big}/`))).toEqual([]);
  // the store: still the source's, and free for a new migration once the re-apply tasks are done
  expect((await guest(ids.big))!.node_id).toBe(a.nodeId);
  await waitUntil('no active task on the jail', async () => {
    const active = await testDb()
      .selectFrom('tasks')
      .select('id')
      .where('resource', '=', `jail:${ids.big}`)
      .where('status', 'in', ['queued', 'running'])
      .execute();
    return active.length === 0;
  });
  expect(existsSync(a.statePath)).toBe(true);
}, 90_000);
