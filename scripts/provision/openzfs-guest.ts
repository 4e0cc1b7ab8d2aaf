/**
 * The real-OpenZFS peer: a Debian guest whose `zpool`/`zfs` are OpenZFS's own (the same cmd/zpool, cmd/zfs and
 * libzfs code FreeBSD ships), booted under QEMU by test/real-zfs. This file builds its image once per set of inputs
 * and caches it outside the clone, keyed by a hash of the inputs (the build script's text, the mirror, the suite, the
 * package lists): a changed input builds a new image, an unchanged one never rebuilds.
 *
 * Packages come only from the Debian mirror this machine is configured with (/etc/apt/sources.list.d/debian.sources
 * or /etc/apt/sources.list); the guest gets its own sources file adding `contrib` and `<suite>-backports` there.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
export const BUILD_SCRIPT = join(here, 'openzfs-guest', 'build.sh');

export const SUITE = 'bookworm';
/** debootstrap's extra packages: a kernel and its headers (DKMS builds the module against them), sshd, the tools */
export const INCLUDE = [
  'linux-image-amd64',
  'linux-headers-amd64',
  'openssh-server',
  'openssh-client',
  'kmod',
  'iproute2',
  'ifupdown',
  'udev',
  'procps',
  'systemd-sysv',
];
/** OpenZFS 2.3.x from bookworm-backports (bookworm itself has 2.1.11, older than any FreeBSD the product supports) */
export const ZFS_PACKAGES = ['zfs-dkms', 'zfsutils-linux'];
/** the host packages that build and boot the guest */
export const HOST_PACKAGES = ['qemu-system-x86', 'qemu-utils', 'debootstrap'];
export const HOST_BINARIES = ['/usr/bin/qemu-system-x86_64', '/usr/sbin/debootstrap'];

export const CACHE_ROOT = process.env.HM_OPENZFS_GUEST_CACHE || '/var/cache/hostmgr/openzfs-guest';

/** The Debian mirror the machine's apt already uses: deb822 `URIs:` first, else the first `deb` line. */
export function configuredMirror(): string {
  const d822 = '/etc/apt/sources.list.d/debian.sources';
  if (existsSync(d822)) {
    const m = /^URIs:\s*(\S+)/m.exec(readFileSync(d822, 'utf8'));
    if (m) return m[1];
  }
  if (existsSync('/etc/apt/sources.list')) {
    const m = /^deb\s+(?:\[[^\]]*\]\s+)?(\S+)/m.exec(readFileSync('/etc/apt/sources.list', 'utf8'));
    if (m) return m[1];
  }
  throw new Error('no Debian mirror configured (neither /etc/apt/sources.list.d/debian.sources nor /etc/apt/sources.list names one)');
}

export interface ImageInputs {
  script: string;
  mirror: string;
  suite: string;
  include: string[];
  zfs: string[];
}

export const currentInputs = (): ImageInputs => ({
  script: readFileSync(BUILD_SCRIPT, 'utf8'),
  mirror: configuredMirror(),
  suite: SUITE,
  include: INCLUDE,
  zfs: ZFS_PACKAGES,
});

export const inputsHash = (i: ImageInputs): string =>
  createHash('sha256')
    .update(JSON.stringify([i.script, i.mirror, i.suite, i.include, i.zfs]))
    .digest('hex')
    .slice(0, 16);

/** A built image: its directory holds rootfs.img, vmlinuz, initrd.img, key (root's SSH key) and zfs-version. */
export interface GuestImage {
  dir: string;
  rootfs: string;
  kernel: string;
  initrd: string;
  key: string;
  zfsPackageVersion: string;
}

const FILES = ['rootfs.img', 'vmlinuz', 'initrd.img', 'key', 'zfs-version'];

export function imageAt(dir: string): GuestImage | undefined {
  if (!FILES.every((f) => existsSync(join(dir, f)))) return undefined;
  return {
    dir,
    rootfs: join(dir, 'rootfs.img'),
    kernel: join(dir, 'vmlinuz'),
    initrd: join(dir, 'initrd.img'),
    key: join(dir, 'key'),
    zfsPackageVersion: readFileSync(join(dir, 'zfs-version'), 'utf8').trim(),
  };
}

/** The cached image for the current inputs, if it was built. */
export const cachedImage = (): GuestImage | undefined => imageAt(join(CACHE_ROOT, inputsHash(currentInputs())));

const onPath = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/** Why this machine cannot build the image, or undefined when it can (root on Debian with apt-get). */
export function cannotBuild(): string | undefined {
  if (process.platform !== 'linux') return `building the OpenZFS guest needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return 'building the OpenZFS guest needs root (debootstrap, chroot, bind mounts)';
  if (!existsSync('/etc/debian_version') || !onPath('apt-get')) return 'building the OpenZFS guest needs Debian with apt-get';
  return undefined;
}

/** qemu and debootstrap from the machine's own apt sources, when missing. */
export async function ensureHostPackages(log: (line: string) => void): Promise<void> {
  if (HOST_BINARIES.every((b) => existsSync(b))) return;
  log(`installing ${HOST_PACKAGES.join(' ')} (≈ 1-2 min)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  // apt's own chatter is kept for an error message, not printed
  const quiet = () => undefined;
  await run('apt-get', ['update', '-qq'], env, quiet);
  await run('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...HOST_PACKAGES], env, quiet);
  const still = HOST_BINARIES.filter((b) => !existsSync(b));
  if (still.length) throw new Error(`installed ${HOST_PACKAGES.join(' ')}, but ${still.join(', ')} is still missing`);
}

export function run(cmd: string, args: string[], env: NodeJS.ProcessEnv, log: (line: string) => void): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let tail = '';
    const take = (b: Buffer) => {
      for (const line of b.toString().split('\n')) if (line.trim()) log(line);
      tail = (tail + b.toString()).slice(-4000);
    };
    child.stdout.on('data', take);
    child.stderr.on('data', (b: Buffer) => {
      tail = (tail + b.toString()).slice(-4000);
    });
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve() : reject(new Error(`${cmd} ${args.join(' ')} exited ${code}:\n${tail}`))));
  });
}

/** Holds an exclusive lock file while fn runs (a second build of the same inputs waits for the first). */
export async function withLock<T>(path: string, log: (line: string) => void, fn: () => Promise<T>): Promise<T> {
  for (let waited = 0; ; waited++) {
    try {
      closeSync(openSync(path, 'wx'));
      writeFileSync(path, String(process.pid));
      break;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      const pid = Number(readFileSync(path, 'utf8'));
      if (pid && !alive(pid)) {
        rmSync(path, { force: true });
        continue;
      }
      if (waited % 30 === 0) log(`another build (pid ${pid}) holds ${path}; waiting for it…`);
      await new Promise((r) => setTimeout(r, 2000));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(path, { force: true });
  }
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
};

/**
 * The image for the current inputs: the cached one, else built now (minutes: progress goes to log). The build
 * runs in a temporary directory beside the cache entry and is renamed into place only when complete, so a killed
 * build leaves no directory that looks like an image (and its leftovers are removed by the next build).
 */
export async function ensureImage(log: (line: string) => void = (l) => console.log(l)): Promise<GuestImage> {
  const inputs = currentInputs();
  const hash = inputsHash(inputs);
  const dir = join(CACHE_ROOT, hash);
  const ready = imageAt(dir);
  if (ready) return ready;
  const why = cannotBuild();
  if (why) throw new Error(`no cached OpenZFS guest image at ${dir}, and ${why}`);
  mkdirSync(CACHE_ROOT, { recursive: true });
  return withLock(join(CACHE_ROOT, `${hash}.lock`), log, async () => {
    const again = imageAt(dir);
    if (again) return again;
    await ensureHostPackages(log);
    for (const old of readdirSync(CACHE_ROOT)) if (old.startsWith(`.building-${hash}-`)) cleanupPartial(join(CACHE_ROOT, old));
    const tmp = join(CACHE_ROOT, `.building-${hash}-${process.pid}`);
    mkdirSync(tmp);
    log(`building the OpenZFS guest image (first time for these inputs: several minutes) in ${tmp}`);
    const env = { ...process.env, MIRROR: inputs.mirror, SUITE: inputs.suite, INCLUDE: inputs.include.join(','), ZFS_PKGS: inputs.zfs.join(' ') };
    try {
      await run('bash', [BUILD_SCRIPT, tmp], env, log);
    } catch (e) {
      cleanupPartial(tmp);
      throw e;
    }
    renameSync(tmp, dir);
    const img = imageAt(dir);
    if (!img) throw new Error(`the build finished but ${dir} lacks one of ${FILES.join(', ')}`);
    log(`OpenZFS guest image ready: ${dir} (zfsutils-linux ${img.zfsPackageVersion})`);
    return img;
  });
}

/** A partial build's directory: unmount what a killed build left bound under its root, then remove it. */
function cleanupPartial(dir: string): void {
  for (const m of ['dev', 'sys', 'proc']) spawnSync('umount', [join(dir, 'root', m)], { stdio: 'ignore' });
  const mounts = readFileSync('/proc/mounts', 'utf8');
  if (mounts.includes(`${dir}/`)) throw new Error(`${dir} still has mounts under it; unmount them and remove it`);
  rmSync(dir, { recursive: true, force: true });
}
