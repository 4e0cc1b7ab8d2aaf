import { sql } from 'kysely';
import { call, expectEnvelope, testDb, tokenFor, uid, type ApiResponse } from '../helpers/api.ts';
import { insertNode, probeTask, startTestAgent, testJailHost, waitForTask, waitUntil, type TestAgent } from '../helpers/agent.ts';
import { freeRids, randomMac } from '../http/vm-fixtures.ts';
import { createTarget } from '../http/iscsi-fixtures.ts';
import { selfSignedCertificate } from '../helpers/self-signed.ts';
import { HostSimulator } from '#simulator/simulator';
import { TASK_KINDS, type TaskKind } from '#shared/agent-api/task-kinds';
import type { SimHost } from '#shared/seed/host/schema';

/**
 * A task cancelled before it started is as if never requested — for every task kind: the request is made while
 * the node's agent is not consuming (it is stopped; the test answers its heartbeats so the node stays online),
 * the queued task is cancelled, and then the store (every row of the node) and the simulated host are as they
 * were before the request. The same request made again is accepted (not refused by a leftover of the first);
 * once the agent is back, its re-application of persisted configuration applies none of the cancelled changes,
 * and the repeated requests that the host can carry out here succeed.
 */
let agent: TestAgent;
let sim: HostSimulator;
let target: string;
let operator: string;
let admin: string;
let keepOnline: NodeJS.Timeout | undefined;
let targetOnline: NodeJS.Timeout | undefined;
let cert: { crt: string; key: string };
const ids: Record<string, number> = {};

const MAC = { vm: randomMac(), orphan: randomMac() };
const zvols = ['zroot/iscsi/vol0', 'zroot/iscsi/vol1'];

function host(ctid: number, vm: number, orphan: number): SimHost {
  const base = testJailHost([{ ctid, name: `cj${ctid}`, dataset: `zroot/jails/cj${ctid}`, state: 'running' }]);
  return {
    ...base,
    // libvirt 12.4 (the guest agent channel E5 enables needs it; on 14.3's libvirt 11 E5 is refused with 409)
    profile: 'freebsd-15.0',
    disks: ['ada0', 'ada1', 'ada2', 'ada3'].map((name) => ({ name, sizeBytes: 100 * 1000 ** 3 })),
    pools: [
      ...base.pools,
      {
        name: 'tank',
        vdevs: [
          {
            type: 'mirror',
            children: [
              { type: 'disk', name: 'ada1' },
              { type: 'disk', name: 'ada2' },
            ],
          },
        ],
        allocatedBytes: 10 * 1000 ** 3,
      },
    ],
    datasets: [
      ...base.datasets,
      { name: 'zroot/data', type: 'filesystem', usedBytes: 2 ** 20, mountpoint: '/zroot/data' },
      ...zvols.map((name) => ({ name, type: 'volume' as const, usedBytes: 2 ** 30, volsizeBytes: 2 ** 34 })),
      ...[vm, orphan].map((rid) => ({ name: `zroot/vms/${rid}/disk0`, type: 'volume' as const, usedBytes: 2 ** 30, volsizeBytes: 2 ** 34 })),
      // the VM's snapshots, for the snapshot kinds (c0 outlives the rollback to c1, for the destroy)
      ...['c0', 'c1', 'c2'].map((n, i) => ({ name: `zroot/vms/${vm}/disk0@${n}`, type: 'snapshot' as const, usedBytes: 0, creation: 1_700_000_000 + i })),
    ],
    sysctls: [...base.sysctls, { name: 'kern.maxfiles', type: 'integer', value: '32768', writable: true }],
    vms: [
      { rid: vm, name: 'cvm', state: 'shut off', macs: [MAC.vm], zvols: [`zroot/vms/${vm}/disk0`] },
      { rid: orphan, name: 'cold', state: 'orphaned', macs: [MAC.orphan], zvols: [`zroot/vms/${orphan}/disk0`] },
    ],
    users: [
      { name: 'root', uid: 0, gid: 0, gecos: 'Charlie &', home: '/root', shell: '/bin/csh' },
      { name: 'alice', uid: 1001, gid: 1001 },
      { name: 'bob', uid: 1002, gid: 1002 },
    ],
    groups: [
      { name: 'wheel', gid: 0, members: ['root'] },
      { name: 'video', gid: 44, members: ['alice', 'bob'] },
      { name: 'games', gid: 13, members: ['bob'] },
      { name: 'alice', gid: 1001, members: [] },
      { name: 'bob', gid: 1002, members: [] },
    ],
    pciDevices: [
      {
        driver: 'ppt',
        unit: 0,
        bus: 3,
        slot: 0,
        function: 0,
        class: '0x020000',
        rev: '0x15',
        vendorId: '0x10ec',
        deviceId: '0x8168',
        subdeviceId: '0x0123',
        vendor: 'Realtek Semiconductor Co., Ltd.',
        device: 'RTL8111/8168 PCIe',
        className: 'network',
        subclass: 'ethernet',
      },
    ],
    files: { ...base.files, '/boot/loader.conf': { content: 'autoboot_delay="3"\n', mode: '644' } },
  } as SimHost;
}

/** A certificate and its key for the imported kind. */
function makeCertificate(): { crt: string; key: string } {
  const { cert, key } = selfSignedCertificate('imp.example.org');
  return { crt: cert, key };
}

/** How to ask for a task of each kind. `runs`: the host here can carry it out (no peer, no ACME server needed). */
interface KindCase {
  request: () => Promise<ApiResponse | { taskId: number }>;
  runs: boolean;
}

const node = () => agent.nodeId;
const cases: Record<TaskKind, KindCase> = {
  'jail.apply-hooks': {
    runs: true,
    request: () =>
      call('PUT', `/jail/${ids.ctid}/options/lifecycle-hooks`, {
        token: operator,
        body: {
          hooks: {
            prestart: { enabled: true, script: 'echo cancelled-hook' },
            start: { enabled: false, script: '' },
            poststart: { enabled: false, script: '' },
            prestop: { enabled: false, script: '' },
            stop: { enabled: false, script: '' },
            poststop: { enabled: false, script: '' },
          },
        },
      }),
  },
  'jail.apply-limits': { runs: true, request: () => call('PUT', `/jail/${ids.ctid}/hardware/cpu`, { token: operator, body: { cores: 2 } }) },
  // the jail runs: a stop is queued; the VM is shut off: a start is queued
  'jail.power': { runs: true, request: () => call('POST', `/jail/${ids.ctid}/power`, { token: operator, body: { action: 'stop' } }) },
  'vm.power': { runs: true, request: () => call('POST', `/vm/${ids.vm}/power`, { token: operator, body: { action: 'start' } }) },
  'jail.migrate': { runs: false, request: () => call('POST', `/jail/${ids.ctid}/migrations`, { token: operator, body: { targetNodeUuid: target } }) },
  'pool.replace-device': {
    runs: true,
    request: () => call('POST', `/zfs/pools/${ids.poolGuid}/replace-device`, { token: operator, body: { old: 'ada1', new: 'ada3' } }),
  },
  'tunable.apply': {
    runs: true,
    request: () => call('PUT', `/system/tunables?nodeId=${node()}`, { token: admin, body: { name: 'kern.maxfiles', value: '65536' } }),
  },
  'host.probe': { runs: true, request: async () => ({ taskId: (await probeTask(node(), { resource: 'probe:every-kind', dispatch: true })).id }) },
  'vm.guest-agent': { runs: true, request: () => call('PUT', `/vm/${ids.vm}/options/qemu-guest-agent`, { token: operator, body: { enabled: true } }) },
  'vm.shutdown-wait-time': { runs: true, request: () => call('PUT', `/vm/${ids.vm}/options/shutdown-wait-time`, { token: operator, body: { waitTime: 321 } }) },
  'vm.cloud-init': {
    runs: true,
    request: () =>
      call('PUT', `/vm/${ids.vm}/options/cloud-init`, {
        token: operator,
        body: { data: '#cloud-config\nhostname: c\n', metadata: 'instance-id: c\n', networkConfig: '' },
      }),
  },
  'vm.vnc': {
    runs: true,
    request: () =>
      call('PUT', `/vm/${ids.vm}/hardware/vnc`, {
        token: operator,
        body: { vncEnabled: true, vncResolution: '1024x768', vncWait: false, vncPort: 5931, vncPassword: 'sekrit' },
      }),
  },
  'vm.purge-registration': { runs: true, request: () => call('DELETE', `/vm/${ids.orphan}/registration`, { token: operator }) },
  'ppt.import': {
    runs: true,
    request: () => call('POST', `/system/ppt-devices/import?nodeId=${node()}`, { token: admin, body: { deviceID: '3/0/0', domain: '0' } }),
  },
  'group.set-members': { runs: true, request: () => call('PUT', `/auth/groups/${ids.video}/members`, { token: admin, body: { usernames: ['alice'] } }) },
  'group.delete': { runs: true, request: () => call('DELETE', `/auth/groups/${ids.games}`, { token: admin }) },
  'iscsi.apply-config': {
    runs: true,
    request: () => call('POST', `/iscsi/targets/${ids.iscsiTarget}/luns`, { token: operator, body: { lunNumber: 0, zvol: zvols[0] } }),
  },
  'backup.run': { runs: false, request: () => call('POST', `/cluster/backups/jobs/${ids.job}/run`, { token: operator }) },
  'backup.restore': { runs: false, request: () => call('POST', `/cluster/backups/jobs/${ids.job}/restore`, { token: operator, body: {} }) },
  'certificate.issue': {
    runs: false,
    request: () => call('POST', '/certificates', { token: operator, body: { name: 'acme-c', domain: 'acme-c.example.org', type: 'managed', nodeId: node() } }),
  },
  'certificate.install': {
    runs: true,
    request: () =>
      call('POST', '/certificates', {
        token: operator,
        body: { name: 'imp-c', type: 'imported', certificatePem: cert.crt, privateKeyPem: cert.key, nodeId: node() },
      }),
  },
  'certificate.self-sign': {
    runs: true,
    request: () =>
      call('POST', '/certificates', { token: operator, body: { name: 'self-c', domain: 'self-c.example.org', type: 'self-signed', nodeId: node() } }),
  },
  'snapshot.create': { runs: true, request: () => call('POST', `/guests/vm/${ids.vm}/snapshots`, { token: operator, body: { name: 'c3' } }) },
  'snapshot.rollback': {
    runs: true,
    // the store's view of the VM's snapshots must be the host's (snapshot.create may just have added one): a rollback
    // destroys only the snapshots its answer named
    request: async () => {
      const onHost = async () => (await hostState()).datasets.filter((d) => d.name.startsWith(`zroot/vms/${ids.vm}/disk0@`)).map((d) => d.name);
      const listed = async () =>
        (await call('GET', `/guests/vm/${ids.vm}/snapshots`, { token: operator })).body.data.snapshots.map((x: { snapshot: string }) => x.snapshot);
      await waitUntil('the VM’s snapshots in the store as on the host', async () => JSON.stringify(await listed()) === JSON.stringify(await onHost()) || null);
      return call('POST', `/guests/vm/${ids.vm}/snapshots/rollback`, {
        token: operator,
        body: { snapshot: `zroot/vms/${ids.vm}/disk0@c1`, destroyNewer: true },
      });
    },
  },
  'snapshot.destroy': {
    runs: true,
    request: () => call('POST', `/guests/vm/${ids.vm}/snapshots/destroy`, { token: operator, body: { snapshot: `zroot/vms/${ids.vm}/disk0@c0` } }),
  },
};

/**
 * Tables that only record what happened (tasks, audit, notifications, telemetry, …), not the state a request
 * changes; and backup_event_counts, a trigger-kept count (a job whose one event came and went counts 0, not nothing).
 */
const HISTORY =
  /^(tasks|audit_log|notifications|notification_|telemetry|pool_telemetry|arc_telemetry|auth_failures|kysely_|nodes$|api_tokens|backup_event_counts)/;

/** Every row of the store that belongs to the node (or to its guests, or is one of its VMs' MAC objects), `updated_at` left out. */
async function storeOf(nodeId: string): Promise<Record<string, unknown[]>> {
  const db = testDb();
  const cols = await sql<{ table_name: string; column_name: string }>`
    SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = 'public' ORDER BY table_name, ordinal_position`.execute(db);
  const tables = new Map<string, string[]>();
  for (const c of cols.rows) tables.set(c.table_name, [...(tables.get(c.table_name) ?? []), c.column_name]);
  const guests = (await db.selectFrom('guests').select('id').where('node_id', '=', nodeId).execute()).map((g) => g.id);
  const out: Record<string, unknown[]> = {};
  for (const [table, columns] of [...tables].sort()) {
    if (HISTORY.test(table)) continue;
    let where;
    if (columns.includes('node_id')) where = sql`node_id = ${nodeId}`;
    else if (columns.includes('guest_id')) where = guests.length ? sql`guest_id = ANY(${guests})` : sql`false`;
    else if (table === 'vm_mac_objects') where = sql`mac = ANY(${Object.values(MAC)})`;
    else continue;
    const rows = await sql<Record<string, unknown>>`SELECT * FROM ${sql.table(table)} WHERE ${where}`.execute(db);
    out[table] = rows.rows.map(({ updated_at: _u, ...r }) => JSON.parse(JSON.stringify(r))).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  }
  return out;
}

/** The simulated host, as its state file holds it. */
const hostState = () => sim.state((s) => JSON.parse(JSON.stringify(s)) as SimHost);

/** The task a request queued: the newest of its kind on the node. */
async function taskOf(kind: TaskKind, res: ApiResponse | { taskId: number }): Promise<number> {
  if ('taskId' in res) return res.taskId;
  if (res.status >= 300) throw new Error(`${kind}: the request was refused: ${res.status} ${res.text}`);
  const t = await testDb()
    .selectFrom('tasks')
    .select('id')
    .where('node_id', '=', node())
    .where('kind', '=', kind)
    .orderBy('id', 'desc')
    .executeTakeFirstOrThrow();
  return t.id;
}

beforeAll(async () => {
  operator = await tokenFor('operator');
  admin = await tokenFor('admin');
  cert = makeCertificate();
  const [ctid, vm, orphan] = await freeRids(3);
  Object.assign(ids, { ctid, vm, orphan });
  agent = await startTestAgent({ host: host(ctid, vm, orphan) });
  await agent.ready();
  sim = new HostSimulator({ statePath: agent.statePath });
  await waitUntil(
    'the node’s inventory in the store',
    async () => {
      const db = testDb();
      const guests = await db.selectFrom('guests').select('id').where('node_id', '=', agent.nodeId).execute();
      const groups = await db.selectFrom('host_groups').select(['id', 'name']).where('node_id', '=', agent.nodeId).execute();
      const pool = await db.selectFrom('pools').select('guid').where('node_id', '=', agent.nodeId).where('name', '=', 'tank').executeTakeFirst();
      const tunable = await db.selectFrom('tunables').select('name').where('node_id', '=', agent.nodeId).where('name', '=', 'kern.maxfiles').executeTakeFirst();
      if (guests.length < 3 || groups.length < 5 || !pool || !tunable) return null;
      Object.assign(ids, { video: groups.find((g) => g.name === 'video')!.id, games: groups.find((g) => g.name === 'games')!.id, poolGuid: pool.guid });
      return true;
    },
    30_000,
  );
  await testDb().updateTable('nodes').set({ status: 'member' }).where('id', '=', agent.nodeId).execute();
  // the agent's own start-up work (its re-application of persisted configuration) is done before the host is compared
  await waitUntil(
    'the agent at rest',
    async () =>
      !(await testDb().selectFrom('tasks').select('id').where('node_id', '=', agent.nodeId).where('status', 'in', ['queued', 'running']).executeTakeFirst()),
    30_000,
  );
  target = await insertNode(undefined, { status: 'member' });
  ids.iscsiTarget = (await createTarget(agent.nodeId)).target.id;
  const job = await call('POST', '/cluster/backups/jobs', {
    token: operator,
    body: {
      name: `cancel ${uid()}`,
      nodeId: agent.nodeId,
      source: { dataset: 'zroot/data' },
      target: { nodeId: target, dataset: 'zroot/copy' },
      schedule: '0 3 1 1 *',
      retention: 2,
    },
  });
  expectEnvelope(job, 201);
  ids.job = job.body.data.id;

  // the agent stops consuming; its node stays online (the test answers for it), so every request is accepted
  await agent.stop();
  const beat = () => void call('POST', '/agent/heartbeat', { token: agent.token }).catch(() => undefined);
  beat();
  keepOnline = setInterval(beat, 1000);
  // the other member node answers too (a migration or backup target must be online)
  targetOnline = setInterval(
    () =>
      void testDb()
        .updateTable('nodes')
        .set({ last_seen_at: sql<Date>`now()` })
        .where('id', '=', target)
        .execute()
        .catch(() => undefined),
    1000,
  );
}, 90_000);

afterAll(async () => {
  if (keepOnline) clearInterval(keepOnline);
  if (targetOnline) clearInterval(targetOnline);
  await agent?.kill();
});

let hostBefore: SimHost;

test('every task kind has a case here', () => {
  expect(Object.keys(cases).sort()).toEqual([...TASK_KINDS].sort());
});

test.each(TASK_KINDS.map((k) => [k]))(
  '%s: cancelled while queued, the store and the host are as before; the same request is accepted again',
  async (kind) => {
    hostBefore ??= await hostState();
    const storeBefore = await storeOf(node());
    const hostAt = await hostState();
    for (const round of [1, 2]) {
      const id = await taskOf(kind, await cases[kind].request());
      const t = await testDb().selectFrom('tasks').select(['status', 'kind']).where('id', '=', id).executeTakeFirstOrThrow();
      expect({ round, ...t }).toEqual({ round, status: 'queued', kind });
      expectEnvelope(await call('POST', `/tasks/${id}/cancel`, { token: operator }), 200, 'task_cancelled');
      expect({ round, store: await storeOf(node()) }).toEqual({ round, store: storeBefore });
      expect(await hostState()).toEqual(hostAt);
    }
  },
  30_000,
);

describe('the agent back', () => {
  beforeAll(async () => {
    if (keepOnline) clearInterval(keepOnline);
    if (targetOnline) clearInterval(targetOnline);
    keepOnline = targetOnline = undefined;
    agent = await agent.restart();
    await agent.ready();
    await waitUntil(
      'the re-application and the skipped tasks done',
      async () =>
        !(await testDb().selectFrom('tasks').select('id').where('node_id', '=', agent.nodeId).where('status', 'in', ['queued', 'running']).executeTakeFirst()),
      60_000,
    );
  }, 90_000);

  test('its re-application of persisted configuration applies none of the cancelled changes', async () => {
    const now = await hostState();
    expect(now.sysctls.find((s) => s.name === 'kern.maxfiles')!.value).toBe('32768');
    expect(now).toEqual(hostBefore);
  });

  test.each(TASK_KINDS.filter((k) => cases[k].runs).map((k) => [k]))(
    '%s: the same request again runs to success',
    async (kind) => {
      const id = await taskOf(kind, await cases[kind].request());
      const t = await waitForTask(id, ['success', 'failed', 'cancelled', 'interrupted'], 30_000);
      expect({ kind, status: t.status, error: t.error }).toEqual({ kind, status: 'success', error: '' });
    },
    40_000,
  );
});
