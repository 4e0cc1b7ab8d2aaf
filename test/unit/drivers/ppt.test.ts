import { listPciDevices, parsePciconfList } from '#agent/drivers/pciconf';
import { addPptDevices, pptDevicesOf, withPptDevices } from '#agent/drivers/loader-conf';
import { readFile } from '#simulator/file-tree';
import type { SimPciDevice } from '#shared/seed/host/schema';
import { fixture, host, simulate } from '../simulator/sim-helper.ts';

/** The devices of pciconf-l-freebsd.txt (a Netgate board) as a seed lists them. */
const boardDevices = (): SimPciDevice[] => {
  const d = (
    driver: string,
    unit: number,
    bus: number,
    slot: number,
    fn: number,
    cls: string,
    rev: string,
    hdr: string,
    deviceId: string,
    sub?: [string, string],
  ): SimPciDevice => ({
    driver,
    unit,
    bus,
    slot,
    function: fn,
    class: cls,
    rev,
    hdr,
    vendorId: sub && sub[0] === '0x10ec' ? '0x10ec' : '0x8086',
    deviceId,
    ...(sub ? { subvendorId: sub[0], subdeviceId: sub[1] } : {}),
  });
  return [
    d('hostb', 0, 0, 0, 0, '0x060000', '0x0b', '0x00', '0x5af0'),
    d('vgapci', 0, 0, 2, 0, '0x030000', '0x0b', '0x00', '0x5a85'),
    d('hdac', 0, 0, 14, 0, '0x040300', '0x0b', '0x00', '0x5a98', ['0x1c6c', '0x010e']),
    d('none', 0, 0, 15, 0, '0x078000', '0x0b', '0x00', '0x5a9a'),
    d('ahci', 0, 0, 18, 0, '0x010601', '0x0b', '0x00', '0x5ae3'),
    d('pcib', 1, 0, 19, 0, '0x060400', '0xfb', '0x01', '0x5ad8'),
    d('pcib', 2, 0, 20, 0, '0x060400', '0xfb', '0x01', '0x5ad6'),
    d('pcib', 3, 0, 20, 1, '0x060400', '0xfb', '0x01', '0x5ad7'),
    d('xhci', 0, 0, 21, 0, '0x0c0330', '0x0b', '0x00', '0x5aa8'),
    d('sdhci_pci', 0, 0, 28, 0, '0x080501', '0x0b', '0x00', '0x5acc'),
    d('isab', 0, 0, 31, 0, '0x060100', '0x0b', '0x00', '0x5ae8'),
    d('ichsmb', 0, 0, 31, 1, '0x0c0500', '0x0b', '0x00', '0x5ad4'),
    { ...d('re', 0, 2, 0, 0, '0x020000', '0x15', '0x00', '0x8168', ['0x10ec', '0x0123']) },
    { ...d('re', 1, 3, 0, 0, '0x020000', '0x15', '0x00', '0x8168', ['0x10ec', '0x0123']) },
  ];
};

const broadcom: SimPciDevice = {
  driver: 'ppt',
  unit: 0,
  bus: 2,
  slot: 0,
  function: 0,
  class: '0x028000',
  rev: '0x05',
  vendorId: '0x14e4',
  deviceId: '0x43a3',
  subvendorId: '0x106b',
  subdeviceId: '0x0159',
  vendor: 'Broadcom Inc. and subsidiaries',
  device: 'BCM4350 802.11ac Wireless Network Adapter',
  className: 'network',
};

describe('pciconf -l / -lv parser (verbatim samples)', () => {
  it('splits every selector into driver, unit and address; none0 is a device without a driver', () => {
    const devices = parsePciconfList(fixture('pciconf-l-freebsd.txt'));
    expect(devices).toHaveLength(14);
    expect(devices[3]).toMatchObject({ selector: 'none0@pci0:0:15:0', driver: 'none', unit: 0, domain: 0, bus: 0, slot: 15, function: 0 });
    expect(devices[9]).toMatchObject({ selector: 'sdhci_pci0@pci0:0:28:0', driver: 'sdhci_pci', unit: 0 });
    expect(devices[13]).toEqual({
      selector: 're1@pci0:3:0:0',
      driver: 're',
      unit: 1,
      domain: 0,
      bus: 3,
      slot: 0,
      function: 0,
      class: '0x020000',
      vendorId: '0x10ec',
      deviceId: '0x8168',
    });
    expect(parsePciconfList(fixture('pciconf-l-ppt0-3-0-0.txt'))).toMatchObject([{ driver: 'ppt', unit: 0, bus: 3, slot: 0, function: 0 }]);
  });

  it('reads the -v names and skips capability lines (-c)', () => {
    expect(parsePciconfList(fixture('pciconf-lv-ppt0-freebsd15.txt'))).toEqual([
      {
        selector: 'ppt0@pci0:2:0:0',
        driver: 'ppt',
        unit: 0,
        domain: 0,
        bus: 2,
        slot: 0,
        function: 0,
        class: '0x028000',
        vendorId: '0x14e4',
        deviceId: '0x43a3',
        vendor: 'Broadcom Inc. and subsidiaries',
        device: 'BCM4350 802.11ac Wireless Network Adapter',
        className: 'network',
      },
    ]);
    const [bcm] = parsePciconfList(fixture('pciconf-lvc-ppt0-3-0-0.txt'));
    expect(bcm).toMatchObject({ driver: 'ppt', bus: 3, device: 'BCM43602 802.11ac Wireless LAN SoC', className: 'network' });
    expect(bcm.subclass).toBeUndefined();
  });
});

describe('simulated pciconf prints what FreeBSD prints', () => {
  it('-l: byte for byte the sample, from the same devices', async () => {
    const { exec } = simulate(host({ pciDevices: boardDevices() }));
    expect((await exec.run(['pciconf', '-l'])).stdout).toBe(fixture('pciconf-l-freebsd.txt'));
  });

  it('-lv: byte for byte the sample; a device operand narrows it, an unknown one fails', async () => {
    const { exec } = simulate(host({ pciDevices: [...boardDevices().slice(0, 2), broadcom] }));
    expect((await exec.run(['pciconf', '-lv', 'pci0:2:0:0'])).stdout).toBe(fixture('pciconf-lv-ppt0-freebsd15.txt'));
    expect((await exec.run(['pciconf', '-lv', 'ppt0'])).stdout).toBe(fixture('pciconf-lv-ppt0-freebsd15.txt'));
    const missing = await exec.run(['pciconf', '-l', 'pci0:9:0:0']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('pciconf: pci0:9:0:0: No such file or directory\n');
    expect((await listPciDevices(exec)).map((d) => d.selector)).toEqual(['hostb0@pci0:0:0:0', 'vgapci0@pci0:0:2:0', 'ppt0@pci0:2:0:0']);
  });

  it('a host without PCI devices lists none (no error)', async () => {
    const { exec } = simulate(host());
    expect(await exec.run(['pciconf', '-lv'])).toEqual({ code: 0, stdout: '', stderr: '' });
  });
});

describe('loader.conf pptdevs', () => {
  it('adds a device to the samples: entries merged without duplicates, vmm_load set, no ppt_load (ppt is part of vmm.ko)', () => {
    expect(withPptDevices(fixture('loader-conf-pptdevs-musenki.txt'), ['2/0/0'])).toBe('vmm_load="YES"\npptdevs="3/0/0 2/0/0"\n');
    expect(withPptDevices(fixture('loader-conf-pptdevs-vmm4.txt'), ['6/5/1', '06/5/0', '3/0/0'])).toBe('pptdevs="10/0/0 6/5/0 6/5/1 3/0/0"\nvmm_load="YES"\n');
    expect(withPptDevices('', ['4/0/0'])).toBe('pptdevs="4/0/0"\nvmm_load="YES"\n');
  });

  it('reads each variable as the loader does (last assignment wins), turns vmm_load "NO" into "YES", removes ppt_load, keeps comments', () => {
    const before = '# boot settings\nautoboot_delay="3"\nvmm_load="NO"\nppt_load="YES"\npptdevs="1/0/0"\nzfs_load="YES"\npptdevs="2/0/0 1/0/0"\n';
    const after = withPptDevices(before, ['1/0/0']);
    expect(after).toBe('# boot settings\nautoboot_delay="3"\nvmm_load="YES"\npptdevs="2/0/0 1/0/0"\nzfs_load="YES"\n');
    expect(pptDevicesOf(after)).toEqual(['2/0/0', '1/0/0']);
  });

  it('past 128 characters the entries go on in pptdevs2 and pptdevs3 (vmm(4)); the existing entries of all three count, once', () => {
    const devs = (from: number, n: number) => Array.from({ length: n }, (_, i) => `${from + i}/31/7`);
    // 13 entries of 8 characters: 13 × 8 + 12 spaces = 116; the 14th would make 125, the 15th 134
    const first = devs(100, 14);
    const before = `pptdevs="${first.join(' ')}"\npptdevs2="200/0/0 100/31/7"\n`;
    const after = withPptDevices(before, ['201/0/0', '100/31/7', '215/31/7']);
    const vars = after.split('\n').filter(Boolean);
    expect(vars).toEqual([`pptdevs="${first.join(' ')}"`, 'pptdevs2="200/0/0 201/0/0 215/31/7"', 'vmm_load="YES"']);
    for (const line of vars) expect(line.replace(/^[a-z0-9_]+="|"$/g, '').length).toBeLessThanOrEqual(128);
    const many = devs(100, 14).concat(devs(120, 14), devs(140, 14));
    const full = withPptDevices('', many);
    expect(
      full
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split('=')[0]),
    ).toEqual(['pptdevs', 'pptdevs2', 'pptdevs3', 'vmm_load']);
    expect(pptDevicesOf(full)).toEqual(many);
    expect(() => withPptDevices(full, ['250/0/0'])).toThrow(
      /43 passthrough devices .* do not fit in pptdevs, pptdevs2 and pptdevs3 \(128 characters each, vmm\(4\)\)/,
    );
  });

  it('writes through a temporary file renamed over loader.conf (none left behind)', async () => {
    const sim = simulate(host({ files: { '/boot/loader.conf': { content: 'kern.geom.label.disk_ident.enable="0"\n', mode: '644' } } }));
    await addPptDevices(sim.exec, ['3/0/0']);
    await addPptDevices(sim.exec, ['3/0/0']);
    const state = sim.exec.simulator.state((s) => ({ conf: readFile(s, '/boot/loader.conf'), tmp: readFile(s, '/boot/loader.conf.hostmgr-new') }));
    expect(await state).toEqual({ conf: 'kern.geom.label.disk_ident.enable="0"\npptdevs="3/0/0"\nvmm_load="YES"\n', tmp: null });
  });

  it('refuses, writing nothing, when loader.conf.d or loader.conf.local (read later) would undo the change; accepts an override that keeps the device', async () => {
    const later = (files: Record<string, string>) =>
      simulate(
        host({
          files: Object.fromEntries(Object.entries({ '/boot/loader.conf': 'zfs_load="YES"\n', ...files }).map(([p, content]) => [p, { content, mode: '644' }])),
        }),
      );
    const local = later({ '/boot/loader.conf.local': 'pptdevs="9/0/0"\n' });
    await expect(addPptDevices(local.exec, ['3/0/0'])).rejects.toThrow(
      '3/0/0 would not be passed through: pptdevs in /boot/loader.conf.local overrides /boot/loader.conf (the loader reads it after /boot/loader.conf; hostmgr edits only /boot/loader.conf: change or remove that assignment)',
    );
    expect(await local.exec.simulator.state((s) => readFile(s, '/boot/loader.conf'))).toBe('zfs_load="YES"\n');
    const dir = later({ '/boot/loader.conf.d/vmm.conf': 'vmm_load="NO"\n' });
    await expect(addPptDevices(dir.exec, ['3/0/0'])).rejects.toThrow(/^vmm_load="NO" in \/boot\/loader.conf.d\/vmm.conf keeps vmm.ko from loading/);
    const keeps = later({ '/boot/loader.conf.local': 'pptdevs="9/0/0 3/0/0"\n' });
    expect((await addPptDevices(keeps.exec, ['3/0/0'])).after).toBe('zfs_load="YES"\npptdevs="3/0/0"\nvmm_load="YES"\n');
  });
});
