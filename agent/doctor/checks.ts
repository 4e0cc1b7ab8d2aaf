import { statSync } from 'node:fs';
import { compareVersions, ctldFlagsUnmanaged, LIBVIRT_VIRTIO_CONSOLE_SINCE, missingCapability } from '#shared/agent-api/capability-rules';
import { readCtldFlags } from '../drivers/ctld.ts';
import type { Executor } from '../executors/executor.ts';
import { assembleInventory, collectSection, readCore, SECTION_NAMES, type Section, type SectionResult } from '../collectors/inventory.ts';
import { collectTelemetry } from '../collectors/telemetry.ts';
import { parseVirshVersion, parseZfsVersion } from '../drivers/host-capabilities.ts';
import { getSysctls } from '../drivers/sysctl.ts';

/**
 * `hostmgr-agent doctor`: a read-only preflight of a host. Each check is one line, `ok`, `warn` (the agent
 * works, a feature does not) or `fail` (the agent or a core feature does not work), with what to do. Nothing on
 * the host is changed: only commands the agent itself runs to read the host, plus which(1), kldstat(8) and
 * sockstat(1). zfs(8) and zpool(8) are not read-only on a host without zfs.ko — libzfs_init() loads it (openzfs
 * lib/libzfs/os/freebsd/libzfs_compat.c libzfs_load_module) — so `kldstat -q -m zfs` comes first, and without
 * the module nothing that runs them (zfs version, the pools/datasets/capabilities inventory, telemetry) is run.
 */
export type Verdict = 'ok' | 'warn' | 'fail';
export interface CheckLine {
  verdict: Verdict;
  check: string;
  message: string;
}

/** Every program the agent runs, with the package that brings it when it is not in the base system. */
export const AGENT_PROGRAMS: { name: string; pkg?: string }[] = [
  ...['cat', 'chmod', 'cpuset', 'ls', 'mkdir', 'mv', 'rm', 'sysctl', 'zfs', 'zpool', 'netstat', 'rctl', 'ssh-keygen', 'tee'].map((name) => ({ name })),
  ...['ctladm', 'ctld', 'jail', 'jexec', 'jls', 'makefs', 'pciconf', 'pw', 'service', 'sysrc'].map((name) => ({ name })),
  // run by the jails' limits.sh when a memory rule cannot be set
  { name: 'logger' },
  { name: 'virsh', pkg: 'libvirt' },
];

/** Supported releases: 14.3 and later 14.x, and 15.x (__FREEBSD_VERSION, sys/sys/param.h). */
const SUPPORTED_FROM = 1403000;
const NEWEST_MAJOR = 15;

interface DoctorOptions {
  /** the agent's state dir (on the machine the agent runs on, which is not the host with --executor ssh) */
  stateDir: string;
  /** the PATH programs are looked up in, for the message */
  path: string;
}

const line = (verdict: Verdict, check: string, message: string): CheckLine => ({ verdict, check, message });
const firstLine = (s: string) => s.trim().split('\n')[0] ?? '';

async function programs(exec: Executor, path: string): Promise<CheckLine[]> {
  const out: CheckLine[] = [];
  for (const p of AGENT_PROGRAMS) {
    const res = await exec.run(['which', p.name]);
    const where = res.code === 0 ? firstLine(res.stdout) : '';
    if (where) out.push(line('ok', `program ${p.name}`, where));
    else if (p.pkg)
      out.push(
        line(
          p.name === 'virsh' ? 'warn' : 'fail',
          `program ${p.name}`,
          `not found on PATH ${path}: pkg install ${p.pkg}, or set HM_AGENT_PATH to include its directory`,
        ),
      );
    else out.push(line('fail', `program ${p.name}`, `not found on PATH ${path}: it is part of the base system; set HM_AGENT_PATH to include its directory`));
  }
  return out;
}

async function release(exec: Executor): Promise<{ lines: CheckLine[]; racct: boolean }> {
  const s = await getSysctls(exec, ['kern.osrelease', 'kern.osreldate', 'kern.racct.enable']).catch(() => new Map<string, string>());
  const rel = s.get('kern.osrelease') ?? '';
  const date = Number.parseInt(s.get('kern.osreldate') ?? '', 10);
  const lines: CheckLine[] = [];
  if (!rel || !Number.isInteger(date)) lines.push(line('fail', 'release', 'sysctl kern.osrelease kern.osreldate gave no answer'));
  else if (date < SUPPORTED_FROM)
    lines.push(
      line('fail', 'release', `${rel} (__FreeBSD_version ${date}) is not supported: upgrade to 14.3 or later (freebsd-update -r 14.3-RELEASE upgrade)`),
    );
  else if (Math.floor(date / 100000) > NEWEST_MAJOR)
    lines.push(line('warn', 'release', `${rel} (__FreeBSD_version ${date}) is newer than the releases tested (14.3+, 15.x)`));
  else lines.push(line('ok', 'release', `${rel} (__FreeBSD_version ${date})`));
  const racct = s.get('kern.racct.enable') === '1';
  lines.push(
    racct
      ? line('ok', 'racct', 'kern.racct.enable=1: jail memory limits (rctl) work')
      : line(
          'warn',
          'racct',
          `kern.racct.enable is ${s.get('kern.racct.enable') ?? 'missing'}: ${missingCapability({ osrelease: rel, osreldate: 0, racct: false }, 'racct')}`,
        ),
  );
  return { lines, racct };
}

/** what is left unread while zfs.ko is not loaded */
const ZFS_NOT_LOADED = 'not read: zfs.ko is not loaded, and zfs/zpool would load it (the doctor changes nothing)';
/** the inventory sections that run zfs or zpool */
const ZFS_SECTIONS: readonly Section[] = ['pools', 'datasets', 'snapshots', 'capabilities'];

async function zfs(exec: Executor, loaded: boolean): Promise<CheckLine> {
  if (!loaded) return line('fail', 'openzfs', 'zfs.ko is not loaded (kldstat -m zfs): sysrc zfs_enable=YES && service zfs start (the doctor does not load it)');
  const res = await exec.run(['zfs', 'version']);
  const v = res.code === 0 ? parseZfsVersion(res.stdout) : null;
  return v ? line('ok', 'openzfs', v) : line('fail', 'openzfs', `zfs version failed: ${firstLine(res.stderr) || `exit ${res.code}`}`);
}

async function libvirt(exec: Executor): Promise<CheckLine[]> {
  const res = await exec.run(['virsh', '-c', 'bhyve:///system', 'version']);
  if (res.code === 127) return [line('warn', 'libvirt', missingCapability({ osrelease: '', osreldate: 0, racct: false, libvirtVersion: null }, 'libvirt')!)];
  const v = res.code === 0 ? parseVirshVersion(res.stdout) : null;
  if (!v)
    return [
      line(
        'fail',
        'libvirt',
        `virsh -c bhyve:///system version: ${firstLine(res.stderr) || `exit ${res.code}`}: sysrc libvirtd_enable=YES && service libvirtd start`,
      ),
    ];
  const out = [line('ok', 'libvirt', `${v}, bhyve:///system answers`)];
  if (compareVersions(v, LIBVIRT_VIRTIO_CONSOLE_SINCE) < 0) {
    out.push(line('warn', 'guest agent channel', missingCapability({ osrelease: '', osreldate: 0, racct: false, libvirtVersion: v }, 'guest-agent-channel')!));
  } else out.push(line('ok', 'guest agent channel', `libvirt ${v} has virtio-console for bhyve`));
  return out;
}

const kmod = async (exec: Executor, name: string) => (await exec.run(['kldstat', '-q', '-m', name])).code === 0;

async function kernelModules(exec: Executor): Promise<CheckLine[]> {
  const out: CheckLine[] = [];
  out.push(
    (await kmod(exec, 'vmm'))
      ? line('ok', 'vmm', 'vmm.ko is loaded (bhyve)')
      : line('warn', 'vmm', 'vmm.ko is not loaded: VMs cannot start; add vmm_load="YES" to /boot/loader.conf (or kldload vmm)'),
  );
  const pf = await kmod(exec, 'pf');
  const ipfw = await kmod(exec, 'ipfw');
  out.push(
    pf || ipfw
      ? line('ok', 'firewall', `${[pf && 'pf', ipfw && 'ipfw'].filter(Boolean).join(' and ')} loaded`)
      : line('warn', 'firewall', 'neither pf nor ipfw is loaded: sysrc pf_enable=YES && service pf start to filter or NAT on this host'),
  );
  return out;
}

async function ctld(exec: Executor): Promise<CheckLine> {
  const res = await exec.run(['service', 'ctld', 'onestatus']);
  if (res.code === 0) return line('ok', 'ctld', firstLine(res.stdout));
  return line(
    'warn',
    'ctld',
    `${firstLine(res.stdout || res.stderr) || 'ctld is not running'}: iSCSI targets need sysrc ctld_enable=YES && service ctld start`,
  );
}

/** rc.conf's ctld_flags: with -u or -f ctld does not read the /etc/ctl.conf hostmgr manages (E13 refuses then) */
async function ctldConfig(exec: Executor): Promise<CheckLine> {
  const flags = await readCtldFlags(exec);
  if (flags === null) return line('warn', 'ctld config', 'sysrc -n ctld_flags gave no answer: whether ctld reads /etc/ctl.conf is not known');
  const why = ctldFlagsUnmanaged(flags);
  return why ? line('warn', 'ctld config', why) : line('ok', 'ctld config', `ctld reads /etc/ctl.conf${flags ? ` (ctld_flags="${flags}")` : ''}`);
}

async function acmePort(exec: Executor): Promise<CheckLine> {
  const res = await exec.run(['sockstat', '-46lq', '-p', '80']);
  if (res.code !== 0) return line('warn', 'port 80', `sockstat failed: ${firstLine(res.stderr)}`);
  const taken = res.stdout
    .split('\n')
    .filter(Boolean)
    .map((l) => l.trim().split(/\s+/));
  if (!taken.length) return line('ok', 'port 80', 'free for the ACME HTTP-01 responder');
  const who = [...new Set(taken.map((f) => `${f[1]} (pid ${f[2]})`))].join(', ');
  return line(
    'warn',
    'port 80',
    `taken by ${who}: ACME HTTP-01 issuance needs it while it runs; stop it, or proxy /.well-known/acme-challenge/ to HM_ACME_HTTP_PORT`,
  );
}

function stateDir(dir: string): CheckLine {
  let st;
  try {
    st = statSync(dir);
  } catch {
    return line('warn', 'state dir', `${dir} does not exist yet: the rc.d script creates it (install -d -m 0700 ${dir})`);
  }
  if (!st.isDirectory()) return line('fail', 'state dir', `${dir} is not a directory`);
  const mode = (st.mode & 0o777).toString(8).padStart(4, '0');
  if (st.mode & 0o077) return line('warn', 'state dir', `${dir} has mode ${mode}: task outcomes are kept there; chmod 0700 ${dir}`);
  return line('ok', 'state dir', `${dir} mode ${mode}`);
}

/** The agent's own read-only collection, through its parsers: one line per inventory section, and telemetry. */
async function collectors(exec: Executor, zfsLoaded: boolean): Promise<CheckLine[]> {
  const out: CheckLine[] = [];
  try {
    const core = await readCore(exec);
    const results = new Map<Section, SectionResult>();
    for (const section of SECTION_NAMES) if (zfsLoaded || !ZFS_SECTIONS.includes(section)) results.set(section, await collectSection(exec, core, section));
    const inv = assembleInventory(core, results);
    const failed = new Map<string, string>(
      ((inv.collectErrors as string[] | undefined) ?? []).map((e) => [e.slice(0, e.indexOf(':')), e.slice(e.indexOf(':') + 1).trim()]),
    );
    out.push(line('ok', 'inventory host', `${inv.hostname}: ${inv.os}, ${inv.cpus} CPUs, ${inv.memoryBytes} bytes`));
    for (const section of ['pools', 'datasets', 'tunables', 'jails', 'vms', 'pciDevices', 'users', 'groups', 'routes', 'capabilities']) {
      if (!results.has(section as Section)) {
        out.push(line('warn', `inventory ${section}`, ZFS_NOT_LOADED));
        continue;
      }
      const why = failed.get(section);
      const v = inv[section];
      if (why !== undefined) out.push(line(section === 'vms' && why.includes('not found') ? 'warn' : 'fail', `inventory ${section}`, firstLine(why)));
      else out.push(line('ok', `inventory ${section}`, Array.isArray(v) ? `${v.length} read` : 'read'));
    }
    if (Array.isArray(inv.pciDevices)) {
      const ppt = inv.pciDevices.filter((d) => d.driver === 'ppt').length;
      out.push(line('ok', 'ppt', ppt ? `${ppt} device(s) reserved for passthrough` : 'no device reserved for passthrough (pptdevs in /boot/loader.conf)'));
    }
  } catch (e) {
    out.push(line('fail', 'inventory host', firstLine((e as Error).message)));
  }
  out.push(await telemetry(exec, zfsLoaded));
  return out;
}

async function telemetry(exec: Executor, zfsLoaded: boolean): Promise<CheckLine> {
  if (!zfsLoaded) return line('warn', 'telemetry', ZFS_NOT_LOADED);
  try {
    const t = await collectTelemetry(exec, { iostatWindowSeconds: 0 });
    return line('ok', 'telemetry', `${t.pools.length} pool(s) sampled, ARC ${t.arc ? 'read' : 'not reported'}`);
  } catch (e) {
    return line('fail', 'telemetry', firstLine((e as Error).message));
  }
}

export async function runDoctor(exec: Executor, opts: DoctorOptions): Promise<CheckLine[]> {
  const rel = await release(exec);
  const zfsLoaded = await kmod(exec, 'zfs');
  return [
    ...(await programs(exec, opts.path)),
    ...rel.lines,
    await zfs(exec, zfsLoaded),
    ...(await libvirt(exec)),
    ...(await kernelModules(exec)),
    await ctld(exec),
    await ctldConfig(exec),
    await acmePort(exec),
    stateDir(opts.stateDir),
    ...(await collectors(exec, zfsLoaded)),
  ];
}

export const formatLine = (l: CheckLine) => `${l.verdict.padEnd(4)} ${l.check}: ${l.message}`;
