import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatLine, runDoctor } from '#agent/doctor/checks';
import { doctorCli } from '#agent/doctor/cli';
import { programPath } from '#agent/executors/program-path';
import type { Executor } from '#agent/executors/executor';
import { SimulatorExecutor } from '#simulator/executor';
import { PROFILES, RC_PATH, type ProfileId } from '#simulator/profiles';
import type { SimHost } from '#shared/seed/host/schema';
import { demoSeedHost } from '../helpers/simulated-host.ts';

/**
 * `hostmgr-agent doctor` against simulated hosts of both profiles, its lines asserted where they could differ.
 * The agent service's PATH: rc's plus the package directories.
 */
const PATH = programPath(undefined, RC_PATH);
const dir = mkdtempSync(join(tmpdir(), 'hm-doctor-'));
const stateDir = join(dir, 'state');
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let n = 0;

/** The demo host as `profile` ships it (its libvirt the release's own, not the demo's upgraded package). */
function host(profile: ProfileId, extra: Partial<SimHost> = {}): Executor {
  return new SimulatorExecutor({
    statePath: join(dir, `h${++n}.json`),
    seed: { ...demoSeedHost(), profile, libvirtVersion: PROFILES[profile].libvirtVersion, ...extra },
    path: PATH,
  });
}

async function doctor(exec: Executor): Promise<Map<string, string>> {
  const lines = (await runDoctor(exec, { stateDir, path: PATH })).map(formatLine);
  // one line per check, each check once
  const byCheck = new Map(lines.map((l) => [l.slice(5, l.indexOf(': ')), l]));
  expect(byCheck.size).toBe(lines.length);
  return byCheck;
}

test('14.3 GENERIC defaults: RACCT off and vmm not loaded warn with the fix; libvirt 11 has no guest agent channel', async () => {
  // GENERIC's defaults: the demo host's loader.conf without its kern.racct.enable=1
  const files = { ...demoSeedHost().files, '/boot/loader.conf': { content: 'vfs.zfs.arc_max="8G"\n', mode: '644' } };
  const d = await doctor(host('freebsd-14.3', { files }));
  expect(d.get('release')).toBe('ok   release: 14.3-RELEASE (__FreeBSD_version 1403000)');
  expect(d.get('racct')).toBe('warn racct: kern.racct.enable is 0: memory limits need RACCT: add kern.racct.enable=1 to /boot/loader.conf and reboot the host');
  expect(d.get('openzfs')).toBe('ok   openzfs: zfs-2.2.7-FreeBSD_ge269af1b3');
  expect(d.get('libvirt')).toBe('ok   libvirt: 11.1.0, bhyve:///system answers');
  expect(d.get('guest agent channel')).toBe(
    'warn guest agent channel: the guest agent channel needs libvirt 12.4.0 or newer (the host has 11.1.0): pkg upgrade libvirt',
  );
  expect(d.get('vmm')).toBe('warn vmm: vmm.ko is not loaded: VMs cannot start; add vmm_load="YES" to /boot/loader.conf (or kldload vmm)');
  expect(d.get('program virsh')).toBe('ok   program virsh: /usr/local/bin/virsh');
  expect(d.get('program zfs')).toBe('ok   program zfs: /sbin/zfs');
  expect(d.get('port 80')).toBe('ok   port 80: free for the ACME HTTP-01 responder');
  expect(d.get('inventory vms')).toBe('ok   inventory vms: 3 read');
  expect(d.get('telemetry')).toMatch(/^ok {3}telemetry: 2 pool\(s\) sampled, ARC read$/);
  expect([...d.values()].filter((l) => l.startsWith('fail'))).toEqual([]);
});

test('15.0 with RACCT, vmm and pf enabled at boot: those checks pass; libvirt 12.4 has the channel', async () => {
  const d = await doctor(
    host('freebsd-15.0', {
      files: {
        '/boot/loader.conf': { content: 'kern.racct.enable=1\nvmm_load="YES"\n', mode: '0644' },
        '/etc/rc.conf': { content: 'pf_enable="YES"\nctld_enable="YES"\n', mode: '0644' },
      },
    }),
  );
  expect(d.get('release')).toBe('ok   release: 15.0-RELEASE (__FreeBSD_version 1500068)');
  expect(d.get('racct')).toBe('ok   racct: kern.racct.enable=1: jail memory limits (rctl) work');
  expect(d.get('openzfs')).toBe(`ok   openzfs: ${PROFILES['freebsd-15.0'].zfsVersion.userland}`);
  expect(d.get('guest agent channel')).toBe('ok   guest agent channel: libvirt 12.4.0 has virtio-console for bhyve');
  expect(d.get('vmm')).toBe('ok   vmm: vmm.ko is loaded (bhyve)');
  expect(d.get('firewall')).toBe('ok   firewall: pf loaded');
  expect(d.get('ctld config')).toBe('ok   ctld config: ctld reads /etc/ctl.conf');
});

test('ctld_flags="-u" in rc.conf: ctld reads UCL, so hostmgr cannot manage its file; the doctor says so', async () => {
  const d = await doctor(host('freebsd-14.3', { files: { '/etc/rc.conf': { content: 'ctld_enable="YES"\nctld_flags="-u"\n', mode: '0644' } } }));
  expect(d.get('ctld config')).toMatch(/^warn ctld config: ctld_flags="-u" in \/etc\/rc.conf makes ctld read its configuration as UCL \(-u\)/);
});

test('a host without libvirt: virsh not on PATH, VMs warn with pkg install libvirt', async () => {
  const d = await doctor(host('freebsd-14.3', { absentPrograms: ['virsh'] }));
  expect(d.get('program virsh')).toBe(`warn program virsh: not found on PATH ${PATH}: pkg install libvirt, or set HM_AGENT_PATH to include its directory`);
  expect(d.get('libvirt')).toBe('warn libvirt: VMs need libvirt: pkg install libvirt, then sysrc libvirtd_enable=YES && service libvirtd start');
  expect(d.get('inventory vms')).toBe('warn inventory vms: virsh: not found');
  expect(d.has('guest agent channel')).toBe(false);
});

test('a host without zfs.ko: the doctor says so and runs neither zfs nor zpool, which would load it (libzfs_init)', async () => {
  // no ARC: ZFS was not loaded at boot
  const exec = host('freebsd-15.0', { arc: undefined, pools: [], datasets: [] });
  const loaded = async () => (await exec.run(['kldstat', '-q', '-m', 'zfs'])).code === 0;
  expect(await loaded()).toBe(false);
  const d = await doctor(exec);
  expect(d.get('openzfs')).toBe('fail openzfs: zfs.ko is not loaded (kldstat -m zfs): sysrc zfs_enable=YES && service zfs start (the doctor does not load it)');
  for (const check of ['inventory pools', 'inventory datasets', 'inventory capabilities', 'telemetry'])
    expect(d.get(check)).toMatch(/^warn .*zfs\.ko is not loaded/);
  expect(d.get('inventory jails')).toMatch(/^ok /);
  // the doctor changed nothing: zfs.ko is still not loaded — while running zfs once loads it
  expect(await loaded()).toBe(false);
  await exec.run(['zfs', 'version']);
  expect(await loaded()).toBe(true);
});

test('port 80 taken by another server is named', async () => {
  const d = await doctor(host('freebsd-14.3', { listeningSockets: [{ command: 'nginx', user: 'www', pid: 812, port: 80, proto: 'tcp4' }] }));
  expect(d.get('port 80')).toBe(
    'warn port 80: taken by nginx (pid 812): ACME HTTP-01 issuance needs it while it runs; stop it, or proxy /.well-known/acme-challenge/ to HM_ACME_HTTP_PORT',
  );
});

test('the CLI exits 1 when a check fails (no zfs), 0 with warnings only, 2 on a bad option; in the simulator build it takes --simulator-state', async () => {
  const simulator = (cfg: { simulatorState?: string; programPath?: string }) =>
    new SimulatorExecutor({ statePath: cfg.simulatorState!, path: cfg.programPath });
  const run = async (extra: Partial<SimHost>) => {
    const state = join(dir, `cli${++n}.json`);
    // the state file is created from the seed on first use
    await new SimulatorExecutor({ statePath: state, seed: { ...demoSeedHost(), ...extra } }).simulator.state(() => undefined);
    let text = '';
    const code = await doctorCli(['--simulator-state', state, '--state-dir', stateDir], { simulator }, (s) => (text += s));
    return { code, text };
  };
  const broken = await run({ absentPrograms: ['zfs'] });
  expect(broken.code).toBe(1);
  expect(broken.text).toContain(`fail program zfs: not found on PATH ${PATH}: it is part of the base system; set HM_AGENT_PATH to include its directory\n`);
  expect(broken.text).toContain('fail openzfs: zfs version failed: zfs: not found\n');
  expect(broken.text).toMatch(/\n\d+ failed, \d+ warnings, \d+ ok\n$/);
  // warnings alone (no libvirt, no state dir yet) exit 0
  const fine = await run({ absentPrograms: ['virsh'] });
  expect(fine.text).toMatch(/\n0 failed, [1-9]\d* warnings, \d+ ok\n$/);
  expect(fine.code).toBe(0);
  expect(await doctorCli(['--bogus'], { simulator }, () => undefined)).toBe(2);
});

test('--ssh needs USER@HOST[:PORT] and a pinned host key (or the explicit opt-out)', async () => {
  const errors: string[] = [];
  const write = process.stderr.write.bind(process.stderr);
  process.stderr.write = ((s: string) => (errors.push(s), true)) as typeof process.stderr.write;
  try {
    expect(await doctorCli(['--ssh', 'root@host:port'], {}, () => undefined)).toBe(2);
    expect(await doctorCli(['--ssh', 'root@web-03:2222'], {}, () => undefined)).toBe(2);
  } finally {
    process.stderr.write = write;
  }
  expect(errors).toEqual([
    'hostmgr-agent doctor: --ssh: expected USER@HOST[:PORT], got "root@host:port"\n',
    'hostmgr-agent doctor: --ssh needs --host-key SHA256:… (or --insecure-accept-any-host-key)\n',
  ]);
});
