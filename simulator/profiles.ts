import { setting } from '#shared/config/read';
import type { SimHost } from '#shared/seed/host/schema';
import type { CtlGrammar } from './commands/ctl-conf-reader.ts';

/**
 * Host profiles: the FreeBSD release, OpenZFS and libvirt a simulated host runs, with the behaviours that
 * differ between them. A seed host names its profile (`profile`); without one it gets HM_SIM_PROFILE, else
 * the oldest supported release, at first start (init.ts), so a state file keeps the profile it was made with.
 *
 * Facts and where they come from (re-check them against a host with `hostmgr-agent doctor`):
 * - osreldate: `__FreeBSD_version` of the release (sys/sys/param.h on the releng branch); 14.3-RELEASE is
 *   1403000, 15.0-RELEASE 1500068.
 * - racct: GENERIC has `options RACCT_DEFAULT_TO_DISABLED` (sys/amd64/conf/GENERIC), so `kern.racct.enable`
 *   is 0 unless /boot/loader.conf sets it (kern_racct.c declares it CTLFLAG_RDTUN: boot time only).
 * - ctld: both parse `getopt(argc, argv, "dtuf:R")` — `-t` is in the C ctld since 13.0 (ctld.8 of 2020-03-31;
 *   only the ctld of 12.x and older has "duf:R"). The 14.x ctld applies its configuration before daemon(3); the
 *   15.0 ctld (usr.sbin/ctld/ctld.cc main) daemonizes first, so an apply failure no longer reaches rc's exit status.
 * - OpenZFS: 14.3 ships 2.2.7; 15.0 ships 2.4 (its release notes); the git suffix is illustrative.
 * - libvirt: the bhyve driver gained virtio-console (the QEMU guest agent channel) in 12.4.0 (libvirt NEWS);
 *   the 14.3 profile runs 11.x, the package of that time.
 * - PATH: /etc/rc and service(8) run rc.d scripts with PATH=/sbin:/bin:/usr/sbin:/usr/bin
 *   (libexec/rc/rc, usr.sbin/service/service.sh); login.conf's default class adds /usr/local/{sbin,bin},
 *   which is what an SSH session gets.
 */
export const PROFILE_IDS = ['freebsd-14.3', 'freebsd-15.0'] as const;
export type ProfileId = (typeof PROFILE_IDS)[number];

export interface HostProfile {
  id: ProfileId;
  /** `sysctl -n kern.osrelease` */
  osrelease: string;
  /** `sysctl -n kern.osreldate` */
  osreldate: number;
  /** `zfs version`: userland line, then kernel module line */
  zfsVersion: { userland: string; kmod: string };
  /** libvirt's version as `virsh version` reports it (major.minor.micro) */
  libvirtVersion: string;
  /** kern.racct.enable when loader.conf does not set it */
  racctDefault: 0 | 1;
  /** ctld's getopt string */
  ctldOptions: string;
  /** ctld daemonizes before applying its configuration: `service ctld onestart` exits 0 even when applying fails */
  ctldDaemonizesBeforeApply: boolean;
  /** the ctl.conf grammar its ctld reads: 14.x's parse.y, or 15.0's with the NVMe-oF statements (commands/ctl-conf-reader.ts) */
  ctlConfGrammar: CtlGrammar;
}

export const PROFILES: Record<ProfileId, HostProfile> = {
  'freebsd-14.3': {
    id: 'freebsd-14.3',
    osrelease: '14.3-RELEASE',
    osreldate: 1403000,
    zfsVersion: { userland: 'zfs-2.2.7-FreeBSD_ge269af1b3', kmod: 'zfs-kmod-2.2.7-FreeBSD_ge269af1b3' },
    libvirtVersion: '11.1.0',
    racctDefault: 0,
    ctldOptions: 'dtuf:R',
    ctldDaemonizesBeforeApply: false,
    ctlConfGrammar: '14',
  },
  'freebsd-15.0': {
    id: 'freebsd-15.0',
    osrelease: '15.0-RELEASE',
    osreldate: 1500068,
    zfsVersion: { userland: 'zfs-2.4.0-rc4-FreeBSD_g099f69ff5', kmod: 'zfs-kmod-2.4.0-rc4-FreeBSD_g099f69ff5' },
    libvirtVersion: '12.4.0',
    racctDefault: 0,
    ctldOptions: 'dtuf:R',
    ctldDaemonizesBeforeApply: true,
    ctlConfGrammar: '15',
  },
};

export const DEFAULT_PROFILE: ProfileId = 'freebsd-14.3';

/** The profile a new host gets when its seed names none. */
export function defaultProfile(env: NodeJS.ProcessEnv = process.env): ProfileId {
  return setting('HM_SIM_PROFILE', env);
}

export function profileOf(state: SimHost): HostProfile {
  return PROFILES[(state.profile as ProfileId | undefined) ?? DEFAULT_PROFILE];
}

/**
 * The libvirt `virsh version` reports: the host's own package when its seed names one (libvirt is a package,
 * devel/libvirt, upgraded with `pkg upgrade libvirt` independently of the release), else the release's.
 */
export function libvirtVersionOf(state: SimHost): string {
  return state.libvirtVersion ?? profileOf(state).libvirtVersion;
}

/** PATH of a process started by /etc/rc or service(8) (the agent's rc.d service) */
export const RC_PATH = '/sbin:/bin:/usr/sbin:/usr/bin';
/** PATH of an SSH login (login.conf's default class) */
export const LOGIN_PATH = '/sbin:/bin:/usr/sbin:/usr/bin:/usr/local/sbin:/usr/local/bin';

/**
 * Where each program the simulator answers lives on FreeBSD (base system or pkg). A bare name is found
 * only through a PATH that contains its directory.
 */
export const PROGRAM_DIRS: Record<string, string> = {
  cat: '/bin',
  chmod: '/bin',
  cp: '/bin',
  cpuset: '/bin',
  df: '/bin',
  kenv: '/bin',
  ln: '/bin',
  ls: '/bin',
  mkdir: '/bin',
  mv: '/bin',
  rm: '/bin',
  rmdir: '/bin',
  sh: '/bin',
  test: '/bin',
  kldstat: '/sbin',
  reboot: '/sbin',
  shutdown: '/sbin',
  sysctl: '/sbin',
  zfs: '/sbin',
  zpool: '/sbin',
  env: '/usr/bin',
  logger: '/usr/bin',
  netstat: '/usr/bin',
  rctl: '/usr/bin',
  readlink: '/usr/bin',
  'ssh-keygen': '/usr/bin',
  sockstat: '/usr/bin',
  stat: '/usr/bin',
  tee: '/usr/bin',
  truncate: '/usr/bin',
  uname: '/usr/bin',
  which: '/usr/bin',
  ctladm: '/usr/sbin',
  ctld: '/usr/sbin',
  jail: '/usr/sbin',
  jexec: '/usr/sbin',
  jls: '/usr/sbin',
  makefs: '/usr/sbin',
  pciconf: '/usr/sbin',
  pw: '/usr/sbin',
  pwd_mkdb: '/usr/sbin',
  service: '/usr/sbin',
  sysrc: '/usr/sbin',
  virsh: '/usr/local/bin',
};
