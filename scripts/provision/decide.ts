import { binaryOf, type PackageManager, type Peer } from './peers.ts';

export interface Machine {
  root: boolean;
  /** Debian or a derivative (/etc/debian_version) */
  debian: boolean;
  /** the package managers on PATH, in order of preference */
  managers: PackageManager[];
  exists(path: string): boolean;
  env: NodeJS.ProcessEnv;
}

export type Decision =
  | { action: 'none' }
  /** root on Debian: apt-get installs these */
  | { action: 'install'; packages: string[]; missing: Peer[] }
  /** anywhere else: stop, and tell the one command that installs them */
  | { action: 'stop'; missing: Peer[]; command: string };

/**
 * What `npm test` does about the suite's peers: nothing when all are there; installs them when it can do so
 * unattended and safely (root on Debian, with apt-get); otherwise stops with the command to run — never skips.
 */
export function decide(peers: Peer[], m: Machine): Decision {
  const missing = peers.filter((p) => !m.exists(binaryOf(p, m.env)));
  if (!missing.length) return { action: 'none' };
  const pkgs = (mgr: PackageManager) => [...new Set(missing.map((p) => p.packages[mgr]).filter((x): x is string => Boolean(x)))];
  if (m.debian && m.root) return { action: 'install', packages: pkgs('apt-get'), missing };
  const mgr = m.debian ? 'apt-get' : m.managers[0];
  const sudo = m.root ? '' : 'sudo ';
  const command = !mgr
    ? `install ${missing.map((p) => `${p.what} (${binaryOf(p, m.env)})`).join(', ')} with your system's package manager`
    : mgr === 'apt-get'
      ? `${sudo}apt-get update && ${sudo}apt-get install -y ${pkgs(mgr).join(' ')}`
      : mgr === 'dnf'
        ? `${sudo}dnf install -y ${pkgs(mgr).join(' ')}`
        : mgr === 'apk'
          ? `${sudo}apk add ${pkgs(mgr).join(' ')}`
          : mgr === 'pacman'
            ? `${sudo}pacman -S --noconfirm ${pkgs(mgr).join(' ')}`
            : `brew install ${pkgs(mgr).join(' ')}`;
  return { action: 'stop', missing, command };
}
