import { loaderConf, rcConf, rcEnabled } from '#simulator/boot';
import type { SimHost } from '#shared/seed/host/schema';

/** What the simulated loader and rc read at boot, and in which order a later file overrides an earlier one. */
const host = (files: Record<string, string>): SimHost =>
  ({
    hostname: 'h',
    cpus: 1,
    memoryBytes: 1,
    disks: [],
    pools: [],
    datasets: [],
    sysctls: [],
    files: Object.fromEntries(Object.entries(files).map(([p, content]) => [p, { content, mode: '644' }])),
  }) as SimHost;

test('loader: loader.conf, then loader.conf.d/*.conf by name, then loader.conf.local; the last assignment wins', () => {
  const h = host({
    '/boot/loader.conf': 'kern.racct.enable=0\nvmm_load="YES"\n# pptdevs="0/1/0"\n',
    '/boot/loader.conf.d/20-ppt.conf': 'pptdevs="2/0/0"\n',
    '/boot/loader.conf.d/10-racct.conf': 'kern.racct.enable="1"\npptdevs="1/0/0"\n',
    '/boot/loader.conf.d/notes.txt': 'vmm_load="NO"\n',
    '/boot/loader.conf.d/sub/x.conf': 'vmm_load="NO"\n',
    '/boot/loader.conf.local': "hw.usb.disable_enumeration='1'\n",
  });
  expect(loaderConf(h)).toEqual({ 'kern.racct.enable': '1', vmm_load: 'YES', pptdevs: '2/0/0', 'hw.usb.disable_enumeration': '1' });
});

test('rc: rc.conf, rc.conf.local, then rc.conf.d/<name>; checkyesno words', () => {
  const h = host({
    '/etc/rc.conf': 'ctld_enable="NO"\njail_enable=yes\n',
    '/etc/rc.conf.local': 'sshd_enable="YES"\n',
    '/etc/rc.conf.d/ctld': 'ctld_enable="YES"\n',
  });
  expect(rcConf(h)).toMatchObject({ ctld_enable: 'YES', jail_enable: 'yes', sshd_enable: 'YES' });
  expect(rcEnabled(h, 'ctld_enable')).toBe(true);
  expect(rcEnabled(h, 'jail_enable')).toBe(true);
  expect(rcEnabled(h, 'libvirtd_enable')).toBe(false);
});
