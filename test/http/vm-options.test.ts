import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { freeRids, insertVm, offlineNode, onlineNode, tasksOf, vmOptions, vmRow } from './vm-fixtures.ts';

/** E5, E6, E17, E19 through HTTP against VMs arranged in the store (the agent side: vm-e2e.test.ts). */
const put = async (rid: number | string, path: string, body: unknown, token?: string | null) =>
  call('PUT', `/vm/${rid}/${path}`, { body, token: token === undefined ? await tokenFor('operator') : token });

const fields = (res: { body: { error: string } }) => res.body.error.split('; ').map((e) => e.split(':')[0]);

let node: string;
let offline: string;
beforeAll(async () => {
  node = await onlineNode();
  offline = await offlineNode();
});

const OPS = [
  { op: 'E5', path: 'options/qemu-guest-agent', body: { enabled: true } },
  { op: 'E6', path: 'options/shutdown-wait-time', body: { waitTime: 60 } },
  { op: 'E17', path: 'options/cloud-init', body: { data: '', metadata: '', networkConfig: '' } },
  { op: 'E19', path: 'hardware/vnc', body: { vncEnabled: false, vncResolution: '1024x768', vncWait: false } },
];

describe.each(OPS)('$op PUT /vm/{rid}/$path: what every VM option endpoint shares', ({ path, body }) => {
  test('401 without a token, 403 for a viewer; nothing persisted', async () => {
    const rid = await insertVm({ nodeId: node });
    expectEnvelope(await put(rid, path, body, null), 401, 'unauthorized');
    expectEnvelope(await put(rid, path, body, await tokenFor('viewer')), 403, 'forbidden');
    expect(await tasksOf(rid)).toEqual([]);
  });

  test('400 for a rid that is not an integer >= 1', async () => {
    for (const rid of ['0', '-3', 'abc', '1.5', '2147483648']) {
      const res = await put(rid, path, body);
      expectEnvelope(res, 400, 'validation_failed');
      expect(res.body.error).toMatch(/^path\.rid: /);
    }
  });

  test('400 for a missing body and for unknown fields', async () => {
    const rid = await insertVm({ nodeId: node });
    expectEnvelope(await call('PUT', `/vm/${rid}/${path}`, { token: await tokenFor('operator') }), 400);
    const res = await put(rid, path, { ...body, extra: 1 });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('body.extra: is not an accepted field');
  });

  test('404 vm_not_found for an unknown RID and for a jail id', async () => {
    const [rid, jail] = await freeRids(2);
    const res = await put(rid, path, body);
    expectEnvelope(res, 404, 'vm_not_found');
    expect(res.body.error).toBe(`vm ${rid} does not exist`);
    await testDb()
      .insertInto('guests')
      .values({ id: jail, type: 'jail', node_id: node, name: `j${jail}`, state: 'stopped', config: '{}' })
      .execute();
    expectEnvelope(await put(jail, path, body), 404, 'vm_not_found');
    await testDb().deleteFrom('guests').where('id', '=', jail).execute();
  });
});

describe.each(OPS.filter((o) => o.op !== 'E6'))('$op: shut-off VMs only, on an online node', ({ path, body }) => {
  test('409 vm_not_shut_off for a running or paused VM; nothing changes', async () => {
    for (const state of ['running', 'paused'] as const) {
      const rid = await insertVm({ nodeId: node, state });
      const before = (await vmRow(rid))!.config;
      const res = await put(rid, path, body);
      expectEnvelope(res, 409, 'vm_not_shut_off');
      expect(res.body.error).toBe(`vm ${rid} is ${state}; shut it off first`);
      expect((await vmRow(rid))!.config).toEqual(before);
      expect(await tasksOf(rid)).toEqual([]);
    }
  });

  test('409 vm_orphaned for a registration libvirt no longer defines', async () => {
    const rid = await insertVm({ nodeId: node, state: 'orphaned' });
    const res = await put(rid, path, body);
    expectEnvelope(res, 409, 'vm_orphaned');
    expect(res.body.error).toContain(`DELETE /api/vm/${rid}/registration`);
  });

  test('503 node_offline when the VM’s node has not been heard from', async () => {
    const rid = await insertVm({ nodeId: offline });
    const res = await put(rid, path, body);
    expectEnvelope(res, 503, 'node_offline');
    expect(res.body.error).toContain(offline);
    expect(await tasksOf(rid)).toEqual([]);
  });
});

/** The capabilities section of a node's inventory, as its agent reports it. */
async function reportCapabilities(nodeId: string, libvirtVersion: string) {
  const row = await testDb().selectFrom('nodes').select('inventory').where('id', '=', nodeId).executeTakeFirstOrThrow();
  const inventory = {
    ...(row.inventory as object),
    capabilities: { osrelease: '14.3-RELEASE', osreldate: 1403000, racct: false, zfsVersion: null, libvirtVersion },
  };
  await testDb()
    .updateTable('nodes')
    .set({ inventory: JSON.stringify(inventory) })
    .where('id', '=', nodeId)
    .execute();
}

describe('E5 PUT /vm/{rid}/options/qemu-guest-agent', () => {
  test('200 with the persisted option and its task; the store and the queued task say the same', async () => {
    const rid = await insertVm({ nodeId: node });
    const res = await put(rid, 'options/qemu-guest-agent', { enabled: true });
    expectEnvelope(res, 200, 'vm_guest_agent_updated');
    const [task] = await tasksOf(rid);
    expect(res.body.data).toEqual({ rid, enabled: true, taskId: task.id });
    expect((await vmOptions(rid)).qemuGuestAgent).toBe(true);
    expect(task).toMatchObject({ kind: 'vm.guest-agent', node_id: node, status: 'queued', payload: { rid, domain: String(rid), enabled: true } });

    expectEnvelope(await put(rid, 'options/qemu-guest-agent', { enabled: false }), 200);
    expect((await vmOptions(rid)).qemuGuestAgent).toBe(false);
    expect((await tasksOf(rid)).map((t) => (t.payload as { enabled: boolean }).enabled)).toEqual([true, false]);
  });

  test('409 capability_missing when the node reported a libvirt without virtio-console; turning it off and newer libvirt pass', async () => {
    const old = await onlineNode();
    await reportCapabilities(old, '11.1.0');
    const rid = await insertVm({ nodeId: old });
    const res = await put(rid, 'options/qemu-guest-agent', { enabled: true });
    expectEnvelope(res, 409, 'capability_missing');
    expect(res.body.error).toContain('the guest agent channel needs libvirt 12.4.0 or newer (the host has 11.1.0): pkg upgrade libvirt');
    expect((await vmOptions(rid)).qemuGuestAgent).toBe(false);
    expect(await tasksOf(rid)).toEqual([]);
    expectEnvelope(await put(rid, 'options/qemu-guest-agent', { enabled: false }), 200);
    const current = await onlineNode();
    await reportCapabilities(current, '12.4.0');
    expectEnvelope(await put(await insertVm({ nodeId: current }), 'options/qemu-guest-agent', { enabled: true }), 200);
  });

  test('400 when enabled is missing or not a boolean', async () => {
    const rid = await insertVm({ nodeId: node });
    for (const body of [{}, { enabled: 'yes' }, { enabled: 1 }, { enabled: null }]) {
      const res = await put(rid, 'options/qemu-guest-agent', body);
      expectEnvelope(res, 400, 'validation_failed');
      expect(fields(res)).toEqual(['body.enabled']);
    }
  });
});

describe('E6 PUT /vm/{rid}/options/shutdown-wait-time', () => {
  test('200 in any state, also orphaned and on an offline node (the task waits for the agent)', async () => {
    for (const [state, nodeId] of [
      ['shut off', node],
      ['running', node],
      ['paused', node],
      ['orphaned', node],
      ['running', offline],
    ] as const) {
      const rid = await insertVm({ nodeId, state });
      const res = await put(rid, 'options/shutdown-wait-time', { waitTime: 300 });
      expectEnvelope(res, 200, 'vm_shutdown_wait_time_updated');
      const [task] = await tasksOf(rid);
      expect(res.body.data).toEqual({ rid, waitTime: 300, taskId: task.id });
      expect((await vmOptions(rid)).shutdownWaitTime).toBe(300);
      expect(task).toMatchObject({ kind: 'vm.shutdown-wait-time', status: 'queued', payload: { rid, domain: String(rid), waitTime: 300 } });
      expect((await vmRow(rid))!.state).toBe(state);
    }
  });

  test('bounds 1–3600 seconds, integers only', async () => {
    const rid = await insertVm({ nodeId: node });
    for (const waitTime of [1, 3600]) expectEnvelope(await put(rid, 'options/shutdown-wait-time', { waitTime }), 200);
    expect((await vmOptions(rid)).shutdownWaitTime).toBe(3600);
    for (const waitTime of [0, -1, 3601, 1.5, '60', null]) {
      const res = await put(rid, 'options/shutdown-wait-time', { waitTime });
      expectEnvelope(res, 400, 'validation_failed');
      expect(fields(res)).toEqual(['body.waitTime']);
    }
    expect((await vmOptions(rid)).shutdownWaitTime).toBe(3600);
  });
});

describe('E17 PUT /vm/{rid}/options/cloud-init', () => {
  const user = '#cloud-config\nusers:\n  - name: ops\n    ssh_authorized_keys: [ "ssh-ed25519 AAAA ops@example" ]\n';
  const meta = 'instance-id: i-1\nlocal-hostname: web\n';
  const net = 'version: 2\nethernets:\n  vtnet0:\n    dhcp4: true\n';

  test('200 sets all three parts, then clears them; the store and the task follow', async () => {
    const rid = await insertVm({ nodeId: node });
    let res = await put(rid, 'options/cloud-init', { data: user, metadata: meta, networkConfig: net });
    expectEnvelope(res, 200, 'vm_cloud_init_updated');
    expect(res.body.data).toMatchObject({ rid, data: user, metadata: meta, networkConfig: net });
    expect((await vmOptions(rid)).cloudInit).toEqual({ data: user, metadata: meta, networkConfig: net });
    expect((await tasksOf(rid))[0]).toMatchObject({ kind: 'vm.cloud-init', payload: { rid, data: user, metadata: meta, networkConfig: net } });

    res = await put(rid, 'options/cloud-init', { data: '', metadata: ' ', networkConfig: '' });
    expectEnvelope(res, 200);
    expect((await vmOptions(rid)).cloudInit).toEqual({ data: '', metadata: '', networkConfig: '' });
  });

  test('network configuration is optional when data and metadata are set', async () => {
    const rid = await insertVm({ nodeId: node });
    expectEnvelope(await put(rid, 'options/cloud-init', { data: user, metadata: meta, networkConfig: '' }), 200);
  });

  test('400 when only one of data and metadata is set, or network-config without them; nothing persisted', async () => {
    const rid = await insertVm({ nodeId: node });
    const cases: Array<[object, string]> = [
      [{ data: user, metadata: '', networkConfig: '' }, 'body.metadata'],
      [{ data: '', metadata: meta, networkConfig: '' }, 'body.data'],
      [{ data: '', metadata: '', networkConfig: net }, 'body.networkConfig'],
    ];
    for (const [body, field] of cases) {
      const res = await put(rid, 'options/cloud-init', body);
      expectEnvelope(res, 400, 'validation_failed');
      expect(fields(res)).toEqual([field]);
    }
    expect(await tasksOf(rid)).toEqual([]);
    expect((await vmOptions(rid)).cloudInit.data).toBe('');
  });

  test('400 naming each part that is not valid YAML', async () => {
    const rid = await insertVm({ nodeId: node });
    let res = await put(rid, 'options/cloud-init', { data: 'users: [unclosed', metadata: meta, networkConfig: '' });
    expectEnvelope(res, 400);
    expect(res.body.error).toMatch(/^body\.data: must be valid YAML/);
    res = await put(rid, 'options/cloud-init', { data: user, metadata: 'a: b: c', networkConfig: 'x:\n\t- y' });
    expect(fields(res)).toEqual(['body.metadata', 'body.networkConfig']);
  });

  test('400 for missing or non-string parts, each named', async () => {
    const rid = await insertVm({ nodeId: node });
    const res = await put(rid, 'options/cloud-init', { data: 1, metadata: null });
    expectEnvelope(res, 400);
    expect(fields(res).sort()).toEqual(['body.data', 'body.metadata', 'body.networkConfig']);
  });
});

describe('E19 PUT /vm/{rid}/hardware/vnc', () => {
  const vnc = (extra: object = {}) => ({ vncEnabled: true, vncResolution: '1920x1080', vncWait: false, ...extra });

  test('200 with the persisted VNC record; bind defaults to 127.0.0.1; the password goes only to the task', async () => {
    const rid = await insertVm({ nodeId: node });
    const res = await put(rid, 'hardware/vnc', vnc({ vncPort: 5999, vncPassword: 'secret' }));
    expectEnvelope(res, 200, 'vm_vnc_updated');
    const [task] = await tasksOf(rid);
    expect(res.body.data).toEqual({
      rid,
      vncEnabled: true,
      vncBind: '127.0.0.1',
      vncPort: 5999,
      vncResolution: '1920x1080',
      vncWait: false,
      vncAuth: true,
      taskId: task.id,
    });
    expect((await vmOptions(rid)).vnc).toEqual({ enabled: true, bind: '127.0.0.1', port: 5999, resolution: '1920x1080', wait: false, auth: true });
    expect(JSON.stringify((await vmRow(rid))!.config)).not.toContain('secret');
    expect(task).toMatchObject({
      kind: 'vm.vnc',
      payload: { rid, enabled: true, bind: '127.0.0.1', port: 5999, resolution: '1920x1080', wait: false, password: 'secret' },
    });
    const view = await call('GET', `/vm/${rid}`, { token: await tokenFor('viewer') });
    expectEnvelope(view, 200, 'vm');
    expect(view.body.data.options.vnc).toEqual({
      enabled: true,
      bind: '127.0.0.1',
      port: 5999,
      resolution: '1920x1080',
      wait: false,
      auth: true,
      passwordSet: true,
    });
    expect(view.text).not.toContain('secret');
  });

  test('an omitted password keeps authentication; an empty one clears it', async () => {
    const rid = await insertVm({ nodeId: node });
    expectEnvelope(await put(rid, 'hardware/vnc', vnc({ vncPassword: 'pw' })), 200);
    let res = await put(rid, 'hardware/vnc', vnc({ vncResolution: '800x600' }));
    expect(res.body.data.vncAuth).toBe(true);
    expect((await tasksOf(rid))[1].payload).not.toHaveProperty('password');
    res = await put(rid, 'hardware/vnc', vnc({ vncPassword: '' }));
    expect(res.body.data.vncAuth).toBe(false);
    expect((await vmOptions(rid)).vnc.auth).toBe(false);
    expect((await tasksOf(rid))[2].payload).toMatchObject({ password: '' });
  });

  test('IPv6 bind and the resolution bounds 640–3840 × 480–2160 are accepted', async () => {
    const rid = await insertVm({ nodeId: node });
    for (const [bind, res] of [
      ['::1', '640x480'],
      ['0.0.0.0', '3840x2160'],
      ['fe80::1', '1280x720'],
    ]) {
      const r = await put(rid, 'hardware/vnc', vnc({ vncBind: bind, vncResolution: res }));
      expectEnvelope(r, 200);
      expect(r.body.data).toMatchObject({ vncBind: bind, vncResolution: res });
    }
  });

  test('400 per field: bind, resolution, port, password, required fields', async () => {
    const rid = await insertVm({ nodeId: node });
    const cases: Array<[object, string[]]> = [
      [vnc({ vncBind: 'localhost' }), ['body.vncBind']],
      [vnc({ vncBind: '10.0.0.256' }), ['body.vncBind']],
      [vnc({ vncResolution: '639x480' }), ['body.vncResolution']],
      [vnc({ vncResolution: '3840x2161' }), ['body.vncResolution']],
      [vnc({ vncResolution: '1920*1080' }), ['body.vncResolution']],
      [vnc({ vncPort: 0 }), ['body.vncPort']],
      // libvirt's bhyve driver refuses ports below 5900 at start (bhyve_command.c)
      [vnc({ vncPort: 5899 }), ['body.vncPort']],
      [vnc({ vncPort: 22 }), ['body.vncPort']],
      [vnc({ vncPort: 65536 }), ['body.vncPort']],
      [vnc({ vncPort: '5900' }), ['body.vncPort']],
      [vnc({ vncPassword: 'a,b' }), ['body.vncPassword']],
      [{ vncBind: '127.0.0.1' }, ['body.vncEnabled', 'body.vncResolution', 'body.vncWait']],
      [vnc({ vncEnabled: 'true', vncWait: 0 }), ['body.vncEnabled', 'body.vncWait']],
    ];
    for (const [body, expected] of cases) {
      const res = await put(rid, 'hardware/vnc', body);
      expectEnvelope(res, 400, 'validation_failed');
      expect(fields(res).sort()).toEqual(expected.sort());
    }
    expect(await tasksOf(rid)).toEqual([]);
  });

  test('409 vnc_port_in_use when another VM of the node has the port with VNC on; other nodes and disabled VNC do not count', async () => {
    const other = await onlineNode();
    const holder = await insertVm({
      nodeId: node,
      options: { vnc: { enabled: true, bind: '127.0.0.1', port: 5950, resolution: '1024x768', wait: false, auth: false } },
    });
    await insertVm({ nodeId: node, options: { vnc: { enabled: false, bind: '127.0.0.1', port: 5951, resolution: '1024x768', wait: false, auth: false } } });
    const rid = await insertVm({ nodeId: node });
    const res = await put(rid, 'hardware/vnc', vnc({ vncPort: 5950 }));
    expectEnvelope(res, 409, 'vnc_port_in_use');
    expect(res.body.error).toBe(`body.vncPort: port 5950 is used by vm ${holder} on node ${node}`);
    expect((await vmOptions(rid)).vnc.enabled).toBe(false);
    // a disabled VM's port is free, another node's is free, and a disabled request does not claim
    expectEnvelope(await put(rid, 'hardware/vnc', vnc({ vncPort: 5951 })), 200);
    expectEnvelope(await put(await insertVm({ nodeId: other }), 'hardware/vnc', vnc({ vncPort: 5950 })), 200);
    expectEnvelope(await put(await insertVm({ nodeId: node }), 'hardware/vnc', vnc({ vncEnabled: false, vncPort: 5950 })), 200);
  });

  test('an omitted port keeps the current one, or takes the lowest free port from 5900', async () => {
    const n2 = await onlineNode();
    const a = await insertVm({ nodeId: n2 });
    const b = await insertVm({ nodeId: n2 });
    expect((await put(a, 'hardware/vnc', vnc())).body.data.vncPort).toBe(5900);
    expect((await put(b, 'hardware/vnc', vnc())).body.data.vncPort).toBe(5901);
    expect((await put(a, 'hardware/vnc', vnc({ vncResolution: '800x600' }))).body.data.vncPort).toBe(5900);
  });

  test('two requests racing for one port on two VMs: exactly one wins', async () => {
    const n3 = await onlineNode();
    const [a, b] = [await insertVm({ nodeId: n3 }), await insertVm({ nodeId: n3 })];
    const token = await tokenFor('operator');
    const results = await Promise.all([a, b].map((rid) => call('PUT', `/vm/${rid}/hardware/vnc`, { token, body: vnc({ vncPort: 6000 }) })));
    expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
    const holders = [];
    for (const rid of [a, b]) if ((await vmOptions(rid)).vnc.enabled) holders.push(rid);
    expect(holders.length).toBe(1);
  });
});
