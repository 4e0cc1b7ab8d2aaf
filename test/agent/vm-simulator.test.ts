import type { SimHost } from '#shared/seed/host/schema';
import { demoSeedHost, simulatedHost } from '../helpers/simulated-host.ts';
import type { JobContext } from '#agent/jobs/job';
import { readFile } from '#simulator/file-tree';
import { simulatedVms } from '#simulator/commands/virsh';
import { collectVms } from '#agent/collectors/vms';
import { parseDomState, parseListAll } from '#agent/drivers/virsh';
import { DomainXml, attrsOf, childrenOf, find, is } from '#agent/drivers/domain-xml';
import { readGuestAgent, readMacs, readVnc, readZvols, hasCdrom } from '#agent/drivers/domain-xml-options';
import { vmGuestAgent } from '#agent/jobs/vm-guest-agent';
import { vmVnc } from '#agent/jobs/vm-vnc';
import { vmCloudInit } from '#agent/jobs/vm-cloud-init';
import { vmShutdownWaitTime } from '#agent/jobs/vm-shutdown-wait-time';
import { vmPurgeRegistration } from '#agent/jobs/vm-purge-registration';
import { fixture } from '../helpers/fixtures.ts';

const RUNNING = { rid: 101, name: 'web', state: 'running' as const, vcpus: 2, memoryBytes: 2 ** 31, macs: ['58:9c:fc:00:01:01'], zvols: ['zroot/vms/101/disk0'], guestAgent: true, vnc: { port: 5901 } };
const STOPPED = { rid: 102, name: 'db', state: 'shut off' as const, macs: ['58:9c:fc:00:01:02', '58:9c:fc:00:01:03'], zvols: ['zroot/vms/102/disk0', 'zroot/vms/102/disk1'], shutdownWaitTime: 90 };
const ORPHAN = { rid: 103, name: 'old', state: 'orphaned' as const, macs: ['58:9c:fc:00:01:04'], zvols: ['zroot/vms/103/disk0'] };

function host(vms: SimHost['vms']): SimHost {
  return {
    hostname: 'sim-vms.example.net',
    cpus: 8,
    memoryBytes: 32 * 2 ** 30,
    disks: [{ name: 'ada0', sizeBytes: 500 * 2 ** 30 }],
    pools: [],
    datasets: [],
    sysctls: [],
    arc: { sizeBytes: 2 ** 30, targetBytes: 2 ** 30, minBytes: 2 ** 28, maxBytes: 2 ** 32 },
    vms,
  };
}

function simulated(vms: SimHost['vms'] = [RUNNING, STOPPED, ORPHAN]) {
  const exec = simulatedHost(host(vms));
  const sim = exec.simulator;
  const progress: Array<[string, number]> = [];
  const ctx = (kind: string): JobContext => ({
    exec,
    task: { id: 1, kind: kind as JobContext['task']['kind'], resource: 'vm:0', nodeId: 'n' },
    progress: async (phase, percent) => void progress.push([phase, percent]),
    signal: new AbortController().signal,
  });
  const xmlOf = async (rid: number) => DomainXml.parse((await sim.run(['virsh', 'dumpxml', String(rid)])).stdout);
  return { sim, exec, ctx, xmlOf, progress };
}

describe('simulated virsh speaks libvirt formats', () => {
  test('virsh list --all: the vsh-table layout of the fixture (names aside), inactive domains with "-"', async () => {
    const { sim } = simulated([
      { rid: 101, name: 'a', state: 'running' },
      { rid: 102, name: 'b', state: 'running' },
      { rid: 103, name: 'c', state: 'running' },
    ]);
    const out = (await sim.run(['virsh', 'list', '--all'])).stdout;
    const expected = fixture('virsh-list-all.txt').replace('fv0', '101').replace('fc4', '102').replace('fc5', '103');
    expect(out.startsWith(expected)).toBe(true);
    const mixed = simulated().sim;
    const rows = parseListAll((await mixed.run(['virsh', 'list', '--all'])).stdout);
    expect(rows).toEqual([
      { id: 1, name: '101', state: 'running' },
      { id: null, name: '102', state: 'shut off' },
    ]);
  });

  test('virsh domstate prints the state and an empty line, like the fixture; unknown domains fail as virsh does', async () => {
    const { sim } = simulated();
    expect((await sim.run(['virsh', 'domstate', '101'])).stdout).toBe(fixture('virsh-domstate-running.txt'));
    expect(parseDomState((await sim.run(['virsh', 'domstate', '101', '--reason'])).stdout)).toBe('running');
    expect(parseDomState((await sim.run(['virsh', 'domstate', '102'])).stdout)).toBe('shut off');
    const gone = await sim.run(['virsh', 'domstate', '103']);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toBe("error: failed to get domain '103'\n");
  });

  test('dumpxml is libvirt-style XML the driver reads: title, guest agent, VNC, MACs, zvols', async () => {
    const { sim, xmlOf } = simulated();
    const raw = (await sim.run(['virsh', 'dumpxml', '101'])).stdout;
    expect(raw).toMatch(/^<domain type='bhyve'>\n  <name>101<\/name>\n/);
    const d = await xmlOf(101);
    expect(d.title).toBe('web');
    expect(readGuestAgent(d)).toBe(true);
    expect(readVnc(d)).toMatchObject({ enabled: true, port: 5901, bind: '127.0.0.1' });
    expect(readMacs(d)).toEqual(['58:9c:fc:00:01:01']);
    expect(readZvols(d)).toEqual(['zroot/vms/101/disk0']);
    expect(readGuestAgent(await xmlOf(102))).toBe(false);
  });

  test('define refuses what libvirt refuses and keeps the uuid of a redefined domain', async () => {
    const { sim } = simulated();
    await sim.run(['mkdir', '-p', '/tmp']);
    await sim.run(['tee', '/tmp/bad.xml'], "<network><name>x</name></network>");
    let r = await sim.run(['virsh', 'define', '/tmp/bad.xml']);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: Failed to define domain from \/tmp\/bad.xml\nerror: XML error: unexpected root element <network>/);
    r = await sim.run(['virsh', 'define', '/tmp/none.xml']);
    expect(r.stderr).toMatch(/Failed to read file '\/tmp\/none.xml'/);
    const xml = (await sim.run(['virsh', 'dumpxml', '102'])).stdout;
    const uuid = DomainXml.parse(xml).uuid;
    await sim.run(['tee', '/tmp/102.xml'], xml.replace(/<uuid>.*<\/uuid>/, ''));
    r = await sim.run(['virsh', 'define', '/tmp/102.xml']);
    expect(r.stdout).toBe("Domain '102' defined from /tmp/102.xml\n\n");
    expect(DomainXml.parse((await sim.run(['virsh', 'dumpxml', '102'])).stdout).uuid).toBe(uuid);
    await sim.run(['tee', '/tmp/clash.xml'], xml.replace('<name>102</name>', '<name>104</name>'));
    r = await sim.run(['virsh', 'define', '/tmp/clash.xml']);
    expect(r.stderr).toMatch(/already defined with uuid/);
  });

  test('makefs -t cd9660 builds an image of the directory with its label', async () => {
    const { sim } = simulated([]);
    await sim.run(['mkdir', '-p', '/tmp/seed']);
    await sim.run(['tee', '/tmp/seed/user-data'], '#cloud-config\n');
    await sim.run(['tee', '/tmp/seed/meta-data'], 'instance-id: x\n');
    const r = await sim.run(['makefs', '-t', 'cd9660', '-o', 'rockridge', '-o', 'label=cidata', '/tmp/seed.iso', '/tmp/seed']);
    expect(r.code).toBe(0);
    const iso = JSON.parse(await sim.state((s) => readFile(s, '/tmp/seed.iso')!));
    expect(iso).toEqual({ format: 'cd9660', label: 'cidata', rockridge: true, files: { 'meta-data': 'instance-id: x\n', 'user-data': '#cloud-config\n' } });
    expect((await sim.run(['makefs', '-t', 'cd9660', '/tmp/x.iso', '/tmp/missing'])).stderr).toBe('makefs: /tmp/missing: No such file or directory\n');
  });
});

describe('VM inventory from the simulated host', () => {
  test('running, shut-off and orphaned VMs with options, MACs and datasets', async () => {
    const { exec } = simulated();
    const vms = await collectVms(exec);
    expect(vms.map((v) => [v.rid, v.name, v.state])).toEqual([
      [101, 'web', 'running'],
      [102, 'db', 'shut off'],
      [103, 'old', 'orphaned'],
    ]);
    const [web, db, old] = vms;
    expect(web.options.qemuGuestAgent).toBe(true);
    expect(web.options.vnc).toEqual({ enabled: true, bind: '127.0.0.1', port: 5901, resolution: '1024x768', wait: false, auth: false });
    expect(db.options.shutdownWaitTime).toBe(90);
    expect(db.macs).toEqual(['58:9c:fc:00:01:02', '58:9c:fc:00:01:03']);
    expect(db.datasets).toEqual(['zroot/vms/102/disk0', 'zroot/vms/102/disk1']);
    expect(old.macs).toEqual(['58:9c:fc:00:01:04']);
    expect(old.datasets).toEqual(['zroot/vms/103/disk0']);
  });
});

describe('VM jobs against the simulated host', () => {
  test('E5: the guest agent channel is defined on a shut-off VM and refused on a running one', async () => {
    const { ctx, xmlOf, progress } = simulated();
    await expect(vmGuestAgent(ctx('vm.guest-agent'), { rid: 101, domain: '101', enabled: false })).rejects.toThrow(/^vm_not_shut_off: vm 101 is running/);
    expect(readGuestAgent(await xmlOf(101))).toBe(true);
    const res = await vmGuestAgent(ctx('vm.guest-agent'), { rid: 102, domain: '102', enabled: true });
    expect(res).toEqual({ rid: 102, qemuGuestAgent: true });
    const d = await xmlOf(102);
    const channel = find(d.devices, is('channel'))!;
    expect(attrsOf(find(channel, is('target'))!)).toEqual({ type: 'virtio', name: 'org.qemu.guest_agent.0' });
    expect(attrsOf(find(channel, is('source'))!)).toEqual({ mode: 'bind', path: '/var/run/libvirt/bhyve/102.agent' });
    expect(progress.map(([p]) => p)).toContain('defining');
  });

  test('E19: VNC graphics + GOP video land in the definition; the password only there', async () => {
    const { ctx, xmlOf } = simulated();
    await vmVnc(ctx('vm.vnc'), { rid: 102, domain: '102', enabled: true, bind: '0.0.0.0', port: 5910, resolution: '1920x1080', wait: true, password: 'pw' });
    const d = await xmlOf(102);
    expect(readVnc(d)).toEqual({ enabled: true, bind: '0.0.0.0', port: 5910, resolution: '1920x1080', wait: true, auth: true });
    expect(attrsOf(find(d.devices, is('graphics'))!).passwd).toBe('pw');
    await vmVnc(ctx('vm.vnc'), { rid: 102, domain: '102', enabled: false, bind: '127.0.0.1', port: 5910, resolution: '1920x1080', wait: false });
    expect(find((await xmlOf(102)).devices, is('graphics'))).toBeUndefined();
  });

  test('E17: the seed ISO is built with makefs and attached as a cdrom; clearing detaches and removes it', async () => {
    const { ctx, xmlOf, sim } = simulated();
    const texts = { data: '#cloud-config\nhostname: db\n', metadata: 'instance-id: vm-102\n', networkConfig: 'version: 2\n' };
    const res = await vmCloudInit(ctx('vm.cloud-init'), { rid: 102, domain: '102', ...texts });
    expect(res).toMatchObject({ cloudInit: true, attached: true });
    const iso = '/var/db/hostmgr/vms/102/cloud-init.iso';
    expect(hasCdrom(await xmlOf(102), iso)).toBe(true);
    const image = JSON.parse(await sim.state((s) => readFile(s, iso)!));
    expect(image).toMatchObject({ format: 'cd9660', label: 'cidata', files: { 'user-data': texts.data, 'meta-data': texts.metadata, 'network-config': texts.networkConfig } });
    const reg = JSON.parse(await sim.state((s) => readFile(s, '/var/db/hostmgr/vms/102/vm.json')!));
    expect(reg.cloudInit).toEqual(texts);

    await vmCloudInit(ctx('vm.cloud-init'), { rid: 102, domain: '102', data: '', metadata: '', networkConfig: '' });
    expect(hasCdrom(await xmlOf(102), iso)).toBe(false);
    expect(await sim.state((s) => readFile(s, iso))).toBeNull();
    expect(childrenOf((await xmlOf(102)).devices).filter(is('disk')).length).toBe(2);
  });

  test('E6: the wait time goes into the registration, in any state (running and orphaned too)', async () => {
    const { ctx, sim } = simulated();
    for (const rid of [101, 103]) {
      await vmShutdownWaitTime(ctx('vm.shutdown-wait-time'), { rid, domain: String(rid), waitTime: 600 });
      expect(JSON.parse(await sim.state((s) => readFile(s, `/var/db/hostmgr/vms/${rid}/vm.json`)!)).shutdownWaitTime).toBe(600);
    }
  });

  test('E10: a defined VM is never purged; an orphaned registration loses its files, not its datasets', async () => {
    const { ctx, sim, exec } = simulated();
    await expect(vmPurgeRegistration(ctx('vm.purge-registration'), { rid: 102, domain: '102' })).rejects.toThrow(/^vm_still_defined/);
    expect(await sim.state((s) => readFile(s, '/var/db/hostmgr/vms/102/vm.json'))).not.toBeNull();
    const res = (await vmPurgeRegistration(ctx('vm.purge-registration'), { rid: 103, domain: '103' })) as { removed: string[] };
    expect(res.removed).toContain('/var/db/hostmgr/vms/103');
    expect(await sim.state((s) => readFile(s, '/var/db/hostmgr/vms/103/vm.json'))).toBeNull();
    expect((await collectVms(exec)).map((v) => v.rid)).toEqual([101, 102]);
    expect(await sim.state((s) => simulatedVms(s).find((v) => v.rid === 103)?.zvols)).toEqual(['zroot/vms/103/disk0']);
  });

  test('undefine leaves an orphaned registration the collector reports', async () => {
    const { sim, exec } = simulated();
    expect((await sim.run(['virsh', 'undefine', '102'])).stdout).toBe("Domain '102' has been undefined\n\n");
    expect((await collectVms(exec)).find((v) => v.rid === 102)?.state).toBe('orphaned');
  });
});

describe('the demo host (shared/seed/demo.json)', () => {
  test('has a running, a shut-off and an orphaned VM backed by its zvols', async () => {
    const demo = demoSeedHost();
    const vms = await collectVms(simulatedHost(demo));
    expect(vms.map((v) => [v.rid, v.name, v.state])).toEqual([
      [201, 'web01', 'running'],
      [202, 'db01', 'shut off'],
      [203, 'legacy01', 'orphaned'],
    ]);
    const zvols = new Set(demo.datasets.filter((d) => d.type === 'volume').map((d) => d.name));
    for (const v of vms) for (const ds of v.datasets) expect(zvols.has(ds)).toBe(true);
  });
});
