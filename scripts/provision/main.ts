/**
 * `npm test` runs this first: the suite's real peers (scripts/provision/peers.ts) are installed when missing —
 * as root on Debian with apt-get, once — or the run stops with the command that installs them.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { decide, type Machine } from './decide.ts';
import { binaryOf, PEERS, type PackageManager } from './peers.ts';
import { ensureImage } from './openzfs-guest.ts';

const onPath = (cmd: string) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

const machine: Machine = {
  root: process.getuid?.() === 0,
  debian: existsSync('/etc/debian_version') && onPath('apt-get'),
  managers: (['apt-get', 'dnf', 'apk', 'pacman', 'brew'] as PackageManager[]).filter(onPath),
  exists: existsSync,
  env: process.env,
};

const d = decide(PEERS, machine);
if (d.action === 'stop') {
  console.error(`npm test needs ${d.missing.map((p) => `${p.what}: ${binaryOf(p, process.env)}`).join('; ')} — missing. Install with:\n\n  ${d.command}\n`);
  process.exit(1);
}
if (d.action === 'install') {
  console.log(`provisioning the test peers: apt-get install ${d.packages.join(' ')}`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  try {
    execFileSync('apt-get', ['update', '-qq'], { stdio: ['ignore', 'ignore', 'inherit'], env });
    execFileSync('apt-get', ['install', '-y', '-qq', '--no-install-recommends', ...d.packages], { stdio: ['ignore', 'ignore', 'inherit'], env });
  } catch {
    console.error(`apt-get failed (output above); install by hand: apt-get update && apt-get install -y ${d.packages.join(' ')}`);
    process.exit(1);
  }
  const still = d.missing.filter((p) => !existsSync(binaryOf(p, process.env)));
  if (still.length) {
    console.error(`installed ${d.packages.join(' ')}, but ${still.map((p) => binaryOf(p, process.env)).join(', ')} is still missing`);
    process.exit(1);
  }
  console.log(`installed: ${d.packages.join(' ')}`);
}

// the real-OpenZFS peer: a QEMU guest image built once from Debian's packages and cached outside the clone. When it
// cannot be had, the run goes on and the real-zfs tests fail with the reason (test/real-zfs/global-setup.ts).
try {
  await ensureImage((line) => console.log(`openzfs guest: ${line}`));
} catch (e) {
  console.error(`openzfs guest: not available — ${(e as Error).message}; the real-zfs tests will fail with this reason`);
}
