// @tier fast
import type { SimHost } from '#shared/seed/host/schema';
import { demoSeedHost, simulatedHost } from '../helpers/simulated-host.ts';
import type { JobContext } from '#agent/jobs/job';
import { filesBelow, readFile, writeFile } from '#simulator/file-tree';
import { guestPower } from '#agent/drivers/guest-power';
import { simulatedVms } from '#simulator/commands/virsh';
import { collectVms } from '#agent/collectors/vms';
import { parseDomState, parseListAll } from '#agent/drivers/virsh';
import { DomainXml, attrsOf, childrenOf, find, findAll, is } from '#agent/drivers/domain-xml';
import { readGuestAgent, readMacs, readVnc, readZvols, hasCdrom } from '#agent/drivers/domain-xml-options';
import { vmGuestAgent } from '#agent/jobs/vm-guest-agent';
import { vmVnc } from '#agent/jobs/vm-vnc';
import { vmCloudInit } from '#agent/jobs/vm-cloud-init';
import { vmShutdownWaitTime } from '#agent/jobs/vm-shutdown-wait-time';
import { vmPurgeRegistration } from '#agent/jobs/vm-purge-registration';
import { fixture } from '../helpers/fixtures.ts';

const RUNNING = {
  rid: 101,
  name: 'web',
  state: 'running' as const,
  vcpus: 2,
  memoryBytes: 2 ** 31,
  macs: ['58:9c:fc:00:01:01'],
  zvols: ['zroot/vms/101/disk0'],
  guestAgent: true,
  vnc: { port: 5901 },
};
const STOPPED = {
  rid: 102,
  name: 'db',
  state: 'shut off' as const,
  macs: ['58:9c:fc:00:01:02', '58:9c:fc:00:01:03'],
  zvols: ['zroot/vms/102/disk0', 'zroot/vms/102/disk1'],
  shutdownWaitTime: 90,
};
const ORPHAN = { rid: 103, name: 'old', state: 'orphaned' as const, macs: ['58:9c:fc:00:01:04'], zvols: ['zroot/vms/103/disk0'] };

function host(vms: SimHost['vms'], profile?: SimHost['profile']): SimHost {
  return {
    ...(profile ? { profile } : {}),
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

function simulated(vms: SimHost['vms'] = [RUNNING, STOPPED, ORPHAN], profile?: SimHost['profile']) {
  const exec = simulatedHost(host(vms, profile));
  const sim = exec.simulator;
  const progress: Array<[string, number]> = [];
  const ctx = (kind: string): JobContext => ({
    exec,
    task: { id: 1, kind: kind as JobContext['task']['kind'], resource: 'vm:0', nodeId: 'n' },
    progress: async (phase, percent) => void progress.push([phase, percent]),
    signal: new AbortController().signal,
  });
  const xmlOf = async (rid: number) => DomainXml.parse((await sim.run(['virsh', 'dumpxml', '--security-info', String(rid)])).stdout);
  return { sim, exec, ctx, xmlOf, progress };
}

describe('simulated virsh speaks libvirt formats', () => {
  test('virsh list --all: the vsh-table layout of the fixture (names aside), inactive domains with "-"', async () => {
    const { sim } = simulated([
      { rid: 101, name: 'a', state: 'running', id: 1 },
      { rid: 102, name: 'b', state: 'running', id: 2 },
      { rid: 103, name: 'c', state: 'running', id: 3 },
    ]);
    const out = (await sim.run(['virsh', 'list', '--all'])).stdout;
    const expected = fixture('virsh-list-all.txt').replace('fv0', '101').replace('fc4', '102').replace('fc5', '103');
    expect(out.startsWith(expected)).toBe(true);
    const mixed = simulated().sim;
    const rows = parseListAll((await mixed.run(['virsh', 'list', '--all'])).stdout);
    expect(rows).toEqual([
      { id: expect.any(Number), name: '101', state: 'running' },
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
    await sim.run(['tee', '/tmp/bad.xml'], '<network><name>x</name></network>');
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
    // cd9660 labels are d-characters: makefs uppercases them
    expect(iso).toEqual({ format: 'cd9660', label: 'CIDATA', rockridge: true, files: { 'meta-data': 'instance-id: x\n', 'user-data': '#cloud-config\n' } });
    expect((await sim.run(['makefs', '-t', 'cd9660', '/tmp/x.iso', '/tmp/missing'])).stderr).toBe('makefs: /tmp/missing: No such file or directory\n');
  });
});

describe('a running VM holds its disks open', () => {
  test('zfs destroy of a running VM’s zvol is busy (bhyve opened the device: an owned objset); once the VM is off, it goes', async () => {
    const h = host([RUNNING, STOPPED]);
    const fs = (name: string) => ({ name, type: 'filesystem' as const, usedBytes: 2 ** 20 });
    const zvol = (name: string) => ({ name, type: 'volume' as const, usedBytes: 2 ** 30, volsizeBytes: 2 ** 30 });
    h.datasets = [fs('zroot/vms'), fs('zroot/vms/101'), fs('zroot/vms/102'), ...[...RUNNING.zvols, ...STOPPED.zvols].map(zvol)];
    const sim = simulatedHost(h).simulator;
    const names = async () => (await sim.run(['zfs', 'list', '-H', '-o', 'name', '-r', 'zroot/vms'])).stdout;
    expect(await sim.run(['zfs', 'destroy', 'zroot/vms/101/disk0'])).toEqual({
      code: 1,
      stdout: '',
      stderr: "cannot destroy 'zroot/vms/101/disk0': dataset is busy\n",
    });
    // -r goes past what it cannot destroy, says each, and exits 1: the shut-off VM's disks go; the held one and
    // the filesystems above it stay (EEXIST: a child is left)
    expect(await sim.run(['zfs', 'destroy', '-r', 'zroot/vms'])).toEqual({
      code: 1,
      stdout: '',
      stderr: [
        "cannot destroy 'zroot/vms/101/disk0': dataset is busy",
        "cannot destroy 'zroot/vms/101': dataset already exists",
        "cannot destroy 'zroot/vms': dataset already exists",
        '',
      ].join('\n'),
    });
    expect(await names()).toBe('zroot/vms\nzroot/vms/101\nzroot/vms/101/disk0\n');
    expect(await sim.run(['virsh', '-c', 'bhyve:///system', 'destroy', '101'])).toMatchObject({ code: 0 });
    expect(await sim.run(['zfs', 'destroy', '-r', 'zroot/vms'])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect((await sim.run(['zfs', 'list', '-H', '-o', 'name'])).stdout).toBe('');
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
    const { ctx, xmlOf, progress } = simulated(undefined, 'freebsd-15.0');
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
    await vmVnc(ctx('vm.vnc'), { rid: 102, domain: '102', enabled: true, bind: '0.0.0.0', port: 5910, resolution: '1920x1080', wait: false, password: 'pw' });
    const d = await xmlOf(102);
    expect(readVnc(d)).toEqual({ enabled: true, bind: '0.0.0.0', port: 5910, resolution: '1920x1080', wait: false, auth: true });
    expect(attrsOf(find(d.devices, is('graphics'))!).passwd).toBe('pw');
    await vmVnc(ctx('vm.vnc'), { rid: 102, domain: '102', enabled: false, bind: '127.0.0.1', port: 5910, resolution: '1920x1080', wait: false });
    expect(find((await xmlOf(102)).devices, is('graphics'))).toBeUndefined();
  });

  test("E19 wait: bhyve's -o on the video's PCI slot through <bhyve:commandline>; the host's own pass-through args stay", async () => {
    const { ctx, xmlOf, sim } = simulated();
    // the host already passes an argument of its own through libvirt
    const own = (await sim.run(['virsh', 'dumpxml', '--security-info', '102'])).stdout
      .replace("<domain type='bhyve'>", "<domain type='bhyve' xmlns:bhyve='http://libvirt.org/schemas/domain/bhyve/1.0'>")
      .replace('</domain>', "  <bhyve:commandline>\n    <bhyve:arg value='-w'/>\n  </bhyve:commandline>\n</domain>");
    await sim.run(['mkdir', '-p', '/tmp']);
    await sim.run(['tee', '/tmp/own.xml'], own);
    expect((await sim.run(['virsh', 'define', '/tmp/own.xml'])).code).toBe(0);
    const vnc = { rid: 102, domain: '102', enabled: true, bind: '127.0.0.1', port: 5911, resolution: '1024x768', password: 'pw' };
    const res = await vmVnc(ctx('vm.vnc'), { ...vnc, wait: true });
    expect(res.vnc).toMatchObject({ enabled: true, port: 5911, wait: true, auth: true });
    const d = await xmlOf(102);
    const slot = Number.parseInt(attrsOf(find(find(d.devices, is('video'))!, is('address'))!).slot, 16);
    expect(slot).toBeGreaterThan(1);
    const args = () => xmlOf(102).then((x) => findAll(find(x.root, is('bhyve:commandline'))!, is('bhyve:arg')).map((a) => attrsOf(a).value));
    expect(await args()).toEqual(['-w', '-o', `pci.0.${slot}.0.wait=true`]);
    expect(attrsOf(d.root)['xmlns:bhyve']).toBe('http://libvirt.org/schemas/domain/bhyve/1.0');
    // the password stays secure info: not in the pass-through, not in a dump without --security-info
    expect((await sim.run(['virsh', 'dumpxml', '102'])).stdout).not.toContain('pw');
    // again with wait: one pair, not two; then off: the pair goes, the host's own argument stays
    await vmVnc(ctx('vm.vnc'), { ...vnc, wait: true });
    expect(await args()).toEqual(['-w', '-o', `pci.0.${slot}.0.wait=true`]);
    const off = await vmVnc(ctx('vm.vnc'), { ...vnc, wait: false });
    expect(off.vnc.wait).toBe(false);
    expect(await args()).toEqual(['-w']);
    // a VM whose VNC goes away cannot wait
    await vmVnc(ctx('vm.vnc'), { ...vnc, enabled: false, wait: true });
    expect(readVnc(await xmlOf(102)).wait).toBe(false);
    expect(await args()).toEqual(['-w']);
  });

  test('simulated define keeps <bhyve:commandline> only in its namespace, as bhyveDomainDefNamespaceParse reads it', async () => {
    const { sim, xmlOf } = simulated();
    const xml = (await sim.run(['virsh', 'dumpxml', '--security-info', '102'])).stdout.replace(
      '</domain>',
      "  <bhyve:commandline>\n    <bhyve:arg value='-w'/>\n  </bhyve:commandline>\n</domain>",
    );
    await sim.run(['mkdir', '-p', '/tmp']);
    await sim.run(['tee', '/tmp/nons.xml'], xml);
    expect((await sim.run(['virsh', 'define', '/tmp/nons.xml'])).code).toBe(0);
    expect(find((await xmlOf(102)).root, is('bhyve:commandline'))).toBeUndefined();
    const valueless = xml
      .replace("<domain type='bhyve'>", "<domain type='bhyve' xmlns:bhyve='http://libvirt.org/schemas/domain/bhyve/1.0'>")
      .replace("<bhyve:arg value='-w'/>", '<bhyve:arg/>');
    await sim.run(['tee', '/tmp/valueless.xml'], valueless);
    expect((await sim.run(['virsh', 'define', '/tmp/valueless.xml'])).stderr).toMatch(/No bhyve command-line argument specified/);
  });

  test('E17 on a VM whose disk is sda: the cdrom takes a drive unit no SATA disk holds (hda and sda are both unit 0)', async () => {
    const { ctx, sim, xmlOf } = simulated([{ ...STOPPED, zvols: ['zroot/vms/102/disk0'] }]);
    // the host defined its disk as sda, with no address: libvirt derives unit 0 from the name
    const xml = (await sim.run(['virsh', 'dumpxml', '--security-info', '102'])).stdout
      .replace("dev='hda'", "dev='sda'")
      .replace(/\s*<address type='drive'[^>]*\/>/g, '');
    await sim.run(['mkdir', '-p', '/tmp']);
    await sim.run(['tee', '/tmp/sda.xml'], xml);
    expect((await sim.run(['virsh', 'define', '/tmp/sda.xml'])).code).toBe(0);
    // the simulated libvirt refuses what libvirt refuses: a cdrom hda beside the disk sda
    const clash = xml.replace(
      '</devices>',
      "  <disk type='file' device='cdrom'>\n      <source file='/tmp/x.iso'/>\n      <target dev='hda' bus='sata'/>\n      <readonly/>\n    </disk>\n  </devices>",
    );
    await sim.run(['tee', '/tmp/clash.xml'], clash);
    expect(await sim.run(['virsh', 'define', '/tmp/clash.xml'])).toEqual({
      code: 1,
      stdout: '',
      stderr:
        "error: Failed to define domain from /tmp/clash.xml\nerror: unsupported configuration: Found duplicate drive address for disk with target name 'sda' controller='0' bus='0' target='0' unit='0'\n",
    });
    const res = await vmCloudInit(ctx('vm.cloud-init'), { rid: 102, domain: '102', data: '#cloud-config\n', metadata: 'instance-id: x\n', networkConfig: '' });
    expect(res).toMatchObject({ cloudInit: true, attached: true });
    const disks = childrenOf((await xmlOf(102)).devices).filter(is('disk'));
    const units = disks.map((disk) => [attrsOf(find(disk, is('target'))!).dev, attrsOf(find(disk, is('address', { type: 'drive' }))!).unit]);
    expect(units).toEqual([
      ['sda', '0'],
      ['hdb', '1'],
    ]);
  });

  test('E17: the seed ISO is built with makefs and attached as a cdrom; clearing detaches and removes it', async () => {
    const { ctx, xmlOf, sim } = simulated();
    const texts = { data: '#cloud-config\nhostname: db\n', metadata: 'instance-id: vm-102\n', networkConfig: 'version: 2\n' };
    const res = await vmCloudInit(ctx('vm.cloud-init'), { rid: 102, domain: '102', ...texts });
    expect(res).toMatchObject({ cloudInit: true, attached: true });
    const iso = '/var/db/hostmgr/vms/102/cloud-init.iso';
    expect(hasCdrom(await xmlOf(102), iso)).toBe(true);
    const image = JSON.parse(await sim.state((s) => readFile(s, iso)!));
    expect(image).toMatchObject({
      format: 'cd9660',
      label: 'CIDATA',
      files: { 'user-data': texts.data, 'meta-data': texts.metadata, 'network-config': texts.networkConfig },
    });
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

/** Every argv the agent runs, recorded in front of the simulated host. */
function recording(exec: ReturnType<typeof simulated>['exec']) {
  const calls: string[][] = [];
  const run = exec.run.bind(exec);
  exec.run = (argv, opts) => {
    calls.push([...argv]);
    return run(argv, opts);
  };
  return calls;
}

const modeOf = (sim: ReturnType<typeof simulated>['sim'], path: string) => sim.state((s) => filesBelow(s, '/')[path.slice(1)]?.mode);

describe('libvirt as a real host has it: domains by UUID, one connection, secure dumps', () => {
  // VM 201 runs as bhyve PID 202 (its domain ID), and VM 202 is shut off: `virsh <cmd> 202` means VM 201
  const CLASH = [
    { rid: 201, name: 'runs-as-pid-202', state: 'running' as const, id: 202, vnc: { port: 5921, password: 'one' } },
    { rid: 202, name: 'stopped', state: 'shut off' as const, vnc: { port: 5922, password: 'two' } },
  ];

  test('virsh tries a numeric argument as a domain ID first; IDs are PIDs', async () => {
    const { sim } = simulated(CLASH);
    expect((await sim.run(['virsh', 'domstate', '202'])).stdout).toBe('running\n\n');
    expect((await sim.run(['virsh', 'domname', '202'])).stdout).toBe('201\n\n');
    const uuid = (await sim.run(['virsh', 'list', '--all', '--uuid'])).stdout.split('\n').filter(Boolean);
    expect(uuid).toHaveLength(2);
    const names = await Promise.all(uuid.map(async (u) => (await sim.run(['virsh', 'domname', u])).stdout));
    expect(names.sort()).toEqual(['201\n\n', '202\n\n']);
    // a domain that starts gets a PID-like ID, never a small counter
    await sim.run(['virsh', 'start', uuid[names.indexOf('202\n\n')]]);
    const rows = parseListAll((await sim.run(['virsh', 'list'])).stdout);
    expect(rows.find((r) => r.name === '202')?.id).toBeGreaterThan(1000);
  });

  test('the inventory and the option jobs act on the VM named by the RID, not on the VM whose PID equals it', async () => {
    const { exec, ctx, xmlOf } = simulated(CLASH);
    const vms = await collectVms(exec);
    expect(vms.map((v) => [v.rid, v.state])).toEqual([
      [201, 'running'],
      [202, 'shut off'],
    ]);
    const before201 = (await xmlOf(201)).toString();
    const res = await vmVnc(ctx('vm.vnc'), { rid: 202, domain: '202', enabled: true, bind: '127.0.0.1', port: 5932, resolution: '800x600', wait: false });
    expect(res).toMatchObject({ rid: 202, vnc: { port: 5932, auth: true } });
    expect((await xmlOf(201)).toString()).toBe(before201);
  });

  test('a restore powers the VM of its RID, not the VM whose PID equals it', async () => {
    const { exec, sim } = simulated(CLASH);
    const g = await guestPower(exec, { type: 'vm', id: 202, name: 'stopped' });
    expect(g.present).toBe(true);
    expect(await g.running()).toBe(false);
    await g.start();
    await g.stop();
    expect(await sim.state((s) => simulatedVms(s).find((v) => v.rid === 201)?.state)).toBe('running');
  });

  test('every virsh call names bhyve:///system and addresses domains by UUID; dumps ask for the security info', async () => {
    const { exec, ctx } = simulated(CLASH, 'freebsd-15.0');
    const calls = recording(exec);
    await collectVms(exec);
    await vmGuestAgent(ctx('vm.guest-agent'), { rid: 202, domain: '202', enabled: true });
    await vmCloudInit(ctx('vm.cloud-init'), { rid: 202, domain: '202', data: '#cloud-config\n', metadata: 'instance-id: x\n', networkConfig: '' });
    const g = await guestPower(exec, { type: 'vm', id: 202, name: 'stopped' });
    await g.start();
    await g.stop();
    const virsh = calls.filter((c) => c[0] === 'virsh');
    expect(virsh.length).toBeGreaterThan(10);
    for (const c of virsh) {
      expect(c.slice(1, 3)).toEqual(['-c', 'bhyve:///system']);
      expect(c.slice(4).some((a) => /^\d+$/.test(a))).toBe(false);
    }
    for (const c of virsh.filter((c) => c[3] === 'dumpxml')) expect(c.slice(4, 6)).toEqual(['--inactive', '--security-info']);
  });

  test('simulated virsh: bhyve:///system connects, other URIs fail as virsh does', async () => {
    const { sim } = simulated();
    expect((await sim.run(['virsh', '-c', 'bhyve:///system', 'domstate', '102'])).stdout).toBe('shut off\n\n');
    const r = await sim.run(['virsh', '-c', 'qemu:///system', 'list', '--all']);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: failed to connect to the hypervisor\nerror: no connection driver available for qemu:///system\n');
  });

  test('dumpxml shows the VNC password only with --security-info; a guest agent or cloud-init redefine keeps it', async () => {
    const { sim, ctx, xmlOf } = simulated([{ ...STOPPED, vnc: { port: 5905, password: 'keep-me' } }], 'freebsd-15.0');
    expect((await sim.run(['virsh', 'dumpxml', '102'])).stdout).not.toContain('passwd');
    expect((await sim.run(['virsh', 'dumpxml', '--security-info', '102'])).stdout).toContain("passwd='keep-me'");
    await vmGuestAgent(ctx('vm.guest-agent'), { rid: 102, domain: '102', enabled: true });
    await vmCloudInit(ctx('vm.cloud-init'), { rid: 102, domain: '102', data: '#cloud-config\n', metadata: 'instance-id: x\n', networkConfig: '' });
    const d = await xmlOf(102);
    expect(readGuestAgent(d)).toBe(true);
    expect(attrsOf(find(d.devices, is('graphics'))!).passwd).toBe('keep-me');
  });

  test('virsh version reports the profile’s libvirt (virsh-host.c cmdVersion)', async () => {
    const old = simulated([], 'freebsd-14.3').sim;
    expect((await old.run(['virsh', '-c', 'bhyve:///system', 'version'])).stdout).toBe(
      'Compiled against library: libvirt 11.1.0\nUsing library: libvirt 11.1.0\nUsing API: BHYVE 11.1.0\nRunning hypervisor: BHYVE 14.3.0\n\n',
    );
    const cur = simulated([], 'freebsd-15.0').sim;
    expect((await cur.run(['virsh', 'version'])).stdout).toContain('Using library: libvirt 12.4.0\n');
  });

  test('E5 on libvirt before 12.4: the task fails naming the capability and nothing is defined', async () => {
    const { ctx, xmlOf } = simulated(undefined, 'freebsd-14.3');
    await expect(vmGuestAgent(ctx('vm.guest-agent'), { rid: 102, domain: '102', enabled: true })).rejects.toThrow(
      'capability_missing: the guest agent channel needs libvirt 12.4.0 or newer (the host has 11.1.0): pkg upgrade libvirt; nothing changed',
    );
    expect(readGuestAgent(await xmlOf(102))).toBe(false);
    // turning it off needs nothing new
    await expect(vmGuestAgent(ctx('vm.guest-agent'), { rid: 102, domain: '102', enabled: false })).resolves.toEqual({ rid: 102, qemuGuestAgent: false });
  });

  test('start refuses what bhyve_command.c refuses: virtio-serial before libvirt 12.4, VNC ports below 5900, graphics without UEFI', async () => {
    for (const [profile, fails] of [
      ['freebsd-14.3', true],
      ['freebsd-15.0', false],
    ] as const) {
      const { sim } = simulated([{ ...STOPPED, guestAgent: true }], profile);
      const r = await sim.run(['virsh', 'start', '102']);
      if (fails) expect(r.stderr).toBe("error: Failed to start domain '102'\nerror: unsupported configuration: unsupported controller device\n");
      else expect(r.stdout).toBe("Domain '102' started\n\n");
    }
    const { sim } = simulated([{ ...STOPPED, vnc: { port: 5000 } }]);
    await sim.run(['mkdir', '-p', '/tmp']);
    expect((await sim.run(['virsh', 'start', '102'])).stderr).toBe(
      "error: Failed to start domain '102'\nerror: unsupported configuration: vnc port must be in range [5900,65535]\n",
    );
    const xml = (await sim.run(['virsh', 'dumpxml', '102'])).stdout.replace(/\s*<loader[^\n]*\n/, '\n').replace("port='5000'", "port='5900'");
    await sim.run(['tee', '/tmp/102.xml'], xml);
    expect((await sim.run(['virsh', 'define', '/tmp/102.xml'])).code).toBe(0);
    expect((await sim.run(['virsh', 'start', '102'])).stderr).toBe(
      "error: Failed to start domain '102'\nerror: unsupported configuration: Graphics are only supported when booting using UEFI\n",
    );
  });

  test('define drops a graphics attribute libvirt does not know (wait)', async () => {
    const { sim } = simulated();
    await sim.run(['mkdir', '-p', '/tmp']);
    const xml = (await sim.run(['virsh', 'dumpxml', '--security-info', '101'])).stdout.replace("autoport='no'", "autoport='no' wait='yes'");
    await sim.run(['tee', '/tmp/101.xml'], xml);
    expect((await sim.run(['virsh', 'define', '/tmp/101.xml'])).code).toBe(0);
    expect((await sim.run(['virsh', 'dumpxml', '101'])).stdout).not.toContain('wait');
  });

  test('E19: a port below 5900 is refused, and so is a domain without a UEFI loader', async () => {
    const { ctx, sim, xmlOf } = simulated();
    const vnc = { rid: 102, domain: '102', enabled: true, bind: '127.0.0.1', port: 5912, resolution: '800x600', wait: true };
    await expect(vmVnc(ctx('vm.vnc'), { ...vnc, wait: false, port: 5899 })).rejects.toThrow(/^vnc_port_out_of_range: vnc port must be in range \[5900,65535\]/);
    const xml = (await sim.run(['virsh', 'dumpxml', '--security-info', '102'])).stdout.replace(/\s*<loader[^\n]*\n/, '\n');
    await sim.run(['mkdir', '-p', '/tmp']);
    await sim.run(['tee', '/tmp/102.xml'], xml);
    expect((await sim.run(['virsh', 'define', '/tmp/102.xml'])).code).toBe(0);
    await expect(vmVnc(ctx('vm.vnc'), { ...vnc, wait: false })).rejects.toThrow(/^vnc_needs_uefi: /);
    expect(readVnc(await xmlOf(102)).enabled).toBe(false);
  });

  test('files with secrets are 0600: vm.json, domain.xml, the cloud-init seed and its ISO', async () => {
    const { ctx, sim } = simulated([{ ...STOPPED, vnc: { port: 5905, password: 'pw' } }]);
    await vmCloudInit(ctx('vm.cloud-init'), { rid: 102, domain: '102', data: '#cloud-config\n', metadata: 'instance-id: x\n', networkConfig: 'version: 2\n' });
    await vmShutdownWaitTime(ctx('vm.shutdown-wait-time'), { rid: 102, domain: '102', waitTime: 45 });
    const dir = '/var/db/hostmgr/vms/102';
    for (const f of ['vm.json', 'domain.xml', 'cloud-init.iso', 'cloud-init/user-data', 'cloud-init/meta-data', 'cloud-init/network-config']) {
      expect([f, await modeOf(sim, `${dir}/${f}`)]).toEqual([f, '600']);
    }
  });

  test('makefs refuses a label that is not d-characters', async () => {
    const { sim } = simulated([]);
    await sim.run(['mkdir', '-p', '/tmp/seed']);
    const r = await sim.run(['makefs', '-t', 'cd9660', '-o', 'label=ci-data', '/tmp/seed.iso', '/tmp/seed']);
    expect(r).toMatchObject({ code: 1, stderr: 'makefs: error: The Disk Label must be composed of d-characters\n' });
  });

  test('a reboot leaves every domain off; libvirtd starts the autostart ones when rc.conf enables it', async () => {
    const { sim, exec } = simulated([RUNNING, { ...STOPPED, state: 'running', autostart: true }]);
    await sim.run(['reboot']);
    expect((await collectVms(exec)).map((v) => [v.rid, v.state])).toEqual([
      [101, 'shut off'],
      [102, 'shut off'],
    ]);
    await sim.state((s) => writeFile(s, '/etc/rc.conf', 'libvirtd_enable="YES"\n', undefined, true));
    await sim.run(['reboot']);
    expect((await collectVms(exec)).map((v) => [v.rid, v.state])).toEqual([
      [101, 'shut off'],
      [102, 'running'],
    ]);
  });
});

describe('finding a VM’s domain', () => {
  test('a domain redefined under a new UUID is found by its name when the registration’s UUID is stale', async () => {
    const { sim, ctx, xmlOf } = simulated();
    const xml = (await sim.run(['virsh', 'dumpxml', '--security-info', '102'])).stdout.replace(
      /<uuid>.*<\/uuid>/,
      '<uuid>0f0e0d0c-0b0a-4999-8888-777766665555</uuid>',
    );
    await sim.run(['virsh', 'undefine', '102']);
    await sim.run(['mkdir', '-p', '/tmp']);
    await sim.run(['tee', '/tmp/102.xml'], xml);
    expect((await sim.run(['virsh', 'define', '/tmp/102.xml'])).code).toBe(0);
    // the registration still names the old UUID
    expect(await sim.state((s) => readFile(s, '/var/db/hostmgr/vms/102/domain.xml'))).not.toContain('0f0e0d0c-0b0a-4999-8888-777766665555');
    await vmVnc(ctx('vm.vnc'), { rid: 102, domain: '102', enabled: true, bind: '127.0.0.1', port: 5940, resolution: '800x600', wait: false });
    const d = await xmlOf(102);
    expect(d.uuid).toBe('0f0e0d0c-0b0a-4999-8888-777766665555');
    expect(readVnc(d).port).toBe(5940);
  });
});
