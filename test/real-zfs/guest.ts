/**
 * Boots the real-OpenZFS guest (scripts/provision/openzfs-guest.ts builds its image) under QEMU and reaches it over
 * SSH on a free 127.0.0.1 port. Every boot starts from the clean image: `-snapshot` writes nothing back to it.
 *
 * A boot resumes a saved machine state (./saved-state.ts): the image booted once until `zfs version` answered, its
 * RAM and the disk blocks that boot wrote kept beside the image under the image's cache key. Resuming it is a boot
 * from the clean image that skips the kernel's and systemd's start (≈ 2.5 min of TCG emulation, a full core). When
 * no state is saved, one is made first (one cold boot, logged); when it cannot be resumed, the guest boots cold and
 * the log says why.
 *
 * KVM is tried first with a short deadline for the kernel's first console line (on some machines a KVM guest hangs
 * right after the boot loader, printing nothing), then TCG, software emulation, which boots everywhere QEMU runs;
 * the log says which one answered.
 */
import type { ChildProcess } from 'node:child_process';
import { closeSync, constants, copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunOptions, RunResult } from '#agent/executors/executor';
import type { SshExecutor } from '#agent/executors/ssh';
import { ensureImage, type GuestImage } from '../../scripts/provision/openzfs-guest.ts';
import { freePort } from '../../scripts/stack/ports.ts';
import { type Accelerator, BootFailed, bootAndWait, type Drive, executorFor, kill, QEMU, qemuArgs, startQemu, waitForZfs } from './qemu.ts';
import { ensureSavedState, type SavedState } from './saved-state.ts';

export { type Accelerator, executorFor };

export interface BootedGuest {
  port: number;
  keyFile: string;
  /** OpenZFS's userland version as `zfs version` prints it, e.g. 2.3.2 */
  version: string;
  accelerator: Accelerator;
  pid: number;
  workDir: string;
  stop(): Promise<void>;
}

/** a bound for resuming a saved state (seconds when it works); past it the guest boots cold */
const RESUME_DEADLINE_MS = 120_000;

/** Boots a guest from the cached image (building it first when missing). Logs progress through log. */
export async function bootGuest(log: (line: string) => void = (l) => console.log(l)): Promise<BootedGuest> {
  if (!existsSync(QEMU)) throw new Error(`${QEMU} is missing: the real-OpenZFS tests need QEMU (apt-get install qemu-system-x86)`);
  const image = await ensureImage(log);
  const workDir = mkdtempSync(join(tmpdir(), 'hm-openzfs-guest-'));
  const keyFile = join(workDir, 'key');
  copyFileSync(image.key, keyFile);
  const kvm = kvmUsable();
  const order: Accelerator[] = kvm ? ['kvm', 'tcg'] : ['tcg'];
  if (!kvm) log('real-zfs guest: /dev/kvm is not usable here; booting under TCG');
  let lastError: Error | undefined;
  for (const accel of order) {
    const booted = (await resume(image, accel, workDir, keyFile, log)) ?? (await coldBoot(image, accel, workDir, keyFile, log));
    if (booted instanceof Error) {
      lastError = booted;
      log(`real-zfs guest: no answer under ${accel.toUpperCase()} (${lastError.message.split('\n')[0]})${accel === 'kvm' ? '; trying TCG' : ''}`);
      continue;
    }
    const { child, port, version, how } = booted;
    try {
      await memoryBackedVarTmp(port, keyFile);
    } catch (e) {
      await kill(child);
      rmSync(workDir, { recursive: true, force: true });
      throw e;
    }
    log(`real-zfs guest: OpenZFS ${version} under ${accel.toUpperCase()} (${how}), SSH on 127.0.0.1:${port}`);
    const stop = async () => {
      await kill(child);
      rmSync(workDir, { recursive: true, force: true });
    };
    return { port, keyFile, version, accelerator: accel, pid: child.pid ?? 0, workDir, stop };
  }
  rmSync(workDir, { recursive: true, force: true });
  throw new Error(`the OpenZFS guest did not boot: ${lastError?.message}`);
}

/**
 * Provisioning: the image (built when missing) and a saved state to resume (one cold boot when missing), for the
 * first accelerator that boots it. Returns the state's directory; a failure leaves boots to cold-boot.
 */
export async function prepareBoot(log: (line: string) => void): Promise<string> {
  const image = await ensureImage(log);
  const order: Accelerator[] = kvmUsable() ? ['kvm', 'tcg'] : ['tcg'];
  let last: Error | undefined;
  for (const accel of order) {
    try {
      return (await ensureSavedState(image, accel, log)).dir;
    } catch (e) {
      last = e as Error;
      log(`real-zfs guest: no saved ${accel.toUpperCase()} state (${last.message.split('\n')[0]})`);
    }
  }
  throw new Error(`no saved machine state could be made: ${last?.message}`);
}

interface Running {
  child: ChildProcess;
  port: number;
  version: string;
  how: string;
}

/**
 * Resumes the saved state for accel (saving one first when missing); undefined when there is none to resume or it
 * did not resume (the caller boots cold), an Error when the image does not boot under accel at all.
 */
async function resume(
  image: GuestImage,
  accel: Accelerator,
  workDir: string,
  keyFile: string,
  log: (line: string) => void,
): Promise<Running | Error | undefined> {
  let state: SavedState;
  try {
    state = await ensureSavedState(image, accel, log);
  } catch (e) {
    // the image did not boot under accel at all: a cold boot would only fail the same way
    if (e instanceof BootFailed) return e;
    log(`real-zfs guest: no saved ${accel.toUpperCase()} state (${(e as Error).message.split('\n')[0]}); booting cold`);
    return undefined;
  }
  const port = await freePort();
  const consoleLog = join(workDir, `console-${accel}-resumed.log`);
  const drive: Drive = { file: state.disk, format: 'qcow2', throwaway: true };
  // `exec:` runs through sh; the path is ours (the cache root), quoted against spaces
  const child = startQemu(qemuArgs(image, accel, drive, port, consoleLog, ['-incoming', `exec:cat '${state.ram}'`]));
  const exec = executorFor(port, keyFile);
  try {
    const version = await waitForZfs(child, exec, consoleLog, RESUME_DEADLINE_MS);
    // the guest's clock resumes at the moment it was saved: set it to now (snapshot creation times, logs)
    const r = await exec.run(['date', '-u', '-s', `@${Math.floor(Date.now() / 1000)}`]);
    if (r.code !== 0) throw new Error(`date -s exited ${r.code}: ${r.stderr}`);
    return { child, port, version, how: `resumed the saved state ${state.dir}` };
  } catch (e) {
    await kill(child);
    log(`real-zfs guest: could not resume ${state.dir} (${(e as Error).message.split('\n')[0]}); booting cold`);
    return undefined;
  } finally {
    await exec.close();
  }
}

/** Boots the image from its kernel, on a throwaway layer over the raw image (no saved state, or it did not resume). */
async function coldBoot(image: GuestImage, accel: Accelerator, workDir: string, keyFile: string, log: (line: string) => void): Promise<Running | Error> {
  const port = await freePort();
  const consoleLog = join(workDir, `console-${accel}.log`);
  const child = startQemu(qemuArgs(image, accel, { file: image.rootfs, format: 'raw', throwaway: true }, port, consoleLog));
  try {
    const version = await bootAndWait(child, accel, port, keyFile, consoleLog);
    return { child, port, version, how: 'cold boot' };
  } catch (e) {
    await kill(child);
    log(`real-zfs guest: cold boot under ${accel.toUpperCase()} failed`);
    return e as Error;
  }
}

/**
 * /var/tmp (where every suite and the host-check kit keep their vdev files and streams) as tmpfs: a file vdev's
 * writes and fsyncs then stay in the guest's memory instead of going through ext4, virtio and the qcow2 layer, all
 * emulated. Measured on a resumed guest (28 Nov): `zpool create` of a mirror 486 → 420 ms, `zfs destroy -r`
 * 365 → 230 ms, `zpool destroy` 407 → 314 ms, `zfs rollback` 267 → 222 ms; commands that write no data about
 * the same. ZFS sees a file vdev either way (openzfs/zfs module/zfs/vdev_file.c); nothing a test compares depends on the file system
 * under it. Sparse files take memory only for what is written (the suites write a few MB a pool).
 */
async function memoryBackedVarTmp(port: number, keyFile: string): Promise<void> {
  const exec = executorFor(port, keyFile);
  try {
    const r = await exec.run(['sh', '-c', 'mount -t tmpfs -o size=1200M,mode=1777 tmpfs /var/tmp']);
    if (r.code !== 0) throw new Error(`mounting tmpfs on the guest's /var/tmp exited ${r.code}: ${r.stderr}`);
  } finally {
    await exec.close();
  }
}

function kvmUsable(): boolean {
  try {
    // opening it read-write is what QEMU needs; the device's presence alone says nothing
    closeSync(openSync('/dev/kvm', constants.O_RDWR));
    return true;
  } catch {
    return false;
  }
}

/**
 * The guest as a test file reaches it: globalSetup (./global-setup.ts) boots one for the run and records it in the
 * file HM_REAL_ZFS_GUEST names; a boot that failed is recorded with its reason, and every test that needs the
 * guest fails with that reason.
 */
export interface GuestState {
  port?: number;
  keyFile?: string;
  version?: string;
  accelerator?: Accelerator;
  pid?: number;
  error?: string;
}

export interface Guest {
  port: number;
  keyFile: string;
  version: string;
  exec: SshExecutor;
  /** runs argv on the guest */
  run(argv: string[], opts?: RunOptions): Promise<RunResult>;
  /** runs argv and returns its stdout, throwing with its stderr when it exits non-zero */
  ok(argv: string[], opts?: RunOptions): Promise<string>;
  /** a shell script on the guest (test setup only: the agent's own commands go through run with an argv) */
  sh(script: string): Promise<string>;
  close(): Promise<void>;
}

export function guestState(): GuestState {
  const file = process.env.HM_REAL_ZFS_GUEST;
  if (!file) throw new Error('HM_REAL_ZFS_GUEST is not set: run the real-OpenZFS suites with `npm run test:real-zfs`');
  return JSON.parse(readFileSync(file, 'utf8')) as GuestState;
}

/** Connects to the run's guest; throws the boot's failure when it did not boot. */
export async function guest(): Promise<Guest> {
  const s = guestState();
  if (s.error || !s.port || !s.keyFile || !s.version) throw new Error(`the real-OpenZFS guest is not available: ${s.error ?? 'no state'}`);
  const exec = executorFor(s.port, s.keyFile);
  const run = (argv: string[], opts?: RunOptions) => exec.run(argv, opts);
  const ok = async (argv: string[], opts?: RunOptions) => {
    const r = await exec.run(argv, opts);
    if (r.code !== 0) throw new Error(`${argv.join(' ')} exited ${r.code}: ${r.stderr}`);
    return r.stdout;
  };
  return { port: s.port, keyFile: s.keyFile, version: s.version, exec, run, ok, sh: (script) => ok(['sh', '-c', script]), close: () => exec.close() };
}
