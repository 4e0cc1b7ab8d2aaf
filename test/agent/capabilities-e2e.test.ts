import { randomUUID } from 'node:crypto';
import { call, expectEnvelope, tokenFor } from '../helpers/api.ts';
import { startTestAgent, testHost, waitUntil } from '../helpers/agent.ts';
import { PROFILES, type ProfileId } from '#simulator/profiles';
import { freeRids } from '../http/vm-fixtures.ts';

/**
 * The agent reports what its host can do (release, __FreeBSD_version, RACCT, OpenZFS and libvirt versions) in
 * its inventory, and GET /api/cluster/nodes/{id} shows it. The agent runs as an rc.d service would on the
 * simulated host (PATH without /usr/local/bin): its VM inventory (virsh) still works.
 */
const node = async (id: string) => (await call('GET', `/cluster/nodes/${id}`, { token: await tokenFor('viewer') })).body.data;

async function agentOn(profile: ProfileId, extra: Parameters<typeof testHost>[0] = {}) {
  const [rid] = await freeRids(1);
  const agent = await startTestAgent({ host: testHost({ profile, vms: [{ rid, name: 'web', state: 'shut off' }], ...extra }) });
  await agent.ready();
  const view = await waitUntil(`node ${agent.nodeId} with capabilities`, async () => {
    const n = await node(agent.nodeId);
    return n?.capabilities ? n : null;
  });
  return { agent, view, rid };
}

describe.each(['freebsd-14.3', 'freebsd-15.0'] as const)('capabilities of a %s host', (profile) => {
  test('reported in the inventory and shown on the node; virsh found under the service PATH', async () => {
    const p = PROFILES[profile];
    const { agent, view, rid } = await agentOn(profile);
    expect(view.capabilities).toMatchObject({ osrelease: p.osrelease, osreldate: p.osreldate, racct: false, zfsVersion: p.zfsVersion.userland });
    // `virsh version` is answered once the simulator's virsh has it; until then the probe says null
    expect([null, p.libvirtVersion]).toContain(view.capabilities.libvirtVersion);
    expect(view.inventory.capabilities).toEqual(view.capabilities);
    // the VM section needs virsh (/usr/local/bin) although the service's PATH lacks it
    expect(view.inventory.collectErrors ?? []).toEqual([]);
    expect(view.inventory.vms).toEqual([expect.objectContaining({ rid, name: 'web' })]);
    await agent.stop();
  }, 60_000);
});

test('RACCT enabled in loader.conf is reported; a host without libvirt reports libvirtVersion null', async () => {
  const { agent, view } = await agentOn('freebsd-14.3', {
    files: { '/boot/loader.conf': { content: 'kern.racct.enable=1\n', mode: '0644' } },
    absentPrograms: ['virsh'],
  });
  expect(view.capabilities).toMatchObject({ racct: true, libvirtVersion: null });
  expect(view.inventory.collectErrors).toContainEqual(expect.stringMatching(/^vms: virsh: not found/));
  await agent.stop();
}, 60_000);

test('a malformed capabilities section is refused naming the field', async () => {
  const id = randomUUID();
  const token = await tokenFor('agent', id);
  const inventory = {
    hostname: 'h',
    os: 'FreeBSD 15.0-RELEASE',
    cpus: 1,
    memoryBytes: 1,
    capabilities: { osrelease: '15.0-RELEASE', osreldate: 'new', racct: 'yes' },
  };
  const res = await call('POST', '/agent/register', { token, body: { id, name: 'h', ip: '192.0.2.9', inventory } });
  expectEnvelope(res, 400, 'validation_failed');
  expect(res.body.error).toContain('body.inventory.capabilities.osreldate');
  expect(res.body.error).toContain('body.inventory.capabilities.racct');
});
