/**
 * Boots the real-OpenZFS guest (scripts/provision/openzfs-guest.ts builds its image) under QEMU and reaches it over
 * SSH on a free 127.0.0.1 port. Every boot starts from the clean image: `-snapshot` writes nothing back to it.
 *
 * KVM is tried first with a short deadline for the kernel's first console line (on some machines a KVM guest hangs
 * right after the boot loader, printing nothing), then TCG, software emulation, which boots everywhere QEMU runs;
 * the log says which one answered.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { closeSync, constants, copyFileSync, existsSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunOptions, RunResult } from '#agent/executors/executor';
import { SshExecutor } from '#agent/executors/ssh';
import { ensureImage, type GuestImage } from '../../scripts/provision/openzfs-guest.ts';
import { freePort } from '../../scripts/stack/ports.ts';

export type Accelerator = 'kvm' | 'tcg';

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

const QEMU = '/usr/bin/qemu-system-x86_64';
/** the kernel prints within a few seconds of start under KVM; a hung KVM guest prints nothing */
const KVM_FIRST_LINE_MS = 10_000;
/** a bound against a hang: ≈ 20 s on an idle machine under TCG, minutes when the machine is busy */
const SSH_DEADLINE_MS = 300_000;

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
    const port = await freePort();
    const consoleLog = join(workDir, `console-${accel}.log`);
    const child = startQemu(image, accel, port, consoleLog);
    try {
      if (accel === 'kvm') await firstConsoleLine(child, consoleLog, KVM_FIRST_LINE_MS);
      const exec = executorFor(port, keyFile);
      try {
        const version = await waitForZfs(child, exec, consoleLog);
        log(`real-zfs guest: OpenZFS ${version} under ${accel.toUpperCase()}, SSH on 127.0.0.1:${port}`);
        const stop = async () => {
          await exec.close();
          await kill(child);
          rmSync(workDir, { recursive: true, force: true });
        };
        return { port, keyFile, version, accelerator: accel, pid: child.pid ?? 0, workDir, stop };
      } finally {
        await exec.close();
      }
    } catch (e) {
      lastError = e as Error;
      await kill(child);
      log(`real-zfs guest: no answer under ${accel.toUpperCase()} (${lastError.message.split('\n')[0]})${accel === 'kvm' ? '; trying TCG' : ''}`);
    }
  }
  rmSync(workDir, { recursive: true, force: true });
  throw new Error(`the OpenZFS guest did not boot: ${lastError?.message}`);
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

function startQemu(image: GuestImage, accel: Accelerator, port: number, consoleLog: string): ChildProcess {
  const args = [
    ...['-accel', accel, '-smp', '2', '-m', '2048', '-nographic', '-nodefaults', '-no-reboot', '-snapshot'],
    ...['-serial', `file:${consoleLog}`],
    ...['-kernel', image.kernel, '-initrd', image.initrd],
    ...['-append', 'root=/dev/vda rw console=ttyS0 net.ifnames=0 panic=-1'],
    ...['-drive', `file=${image.rootfs},if=virtio,format=raw`],
    ...['-netdev', `user,id=n0,hostfwd=tcp:127.0.0.1:${port}-:22`, '-device', 'virtio-net-pci,netdev=n0'],
  ];
  if (accel === 'kvm') args.push('-cpu', 'host');
  return spawn(QEMU, args, { stdio: ['ignore', 'ignore', 'pipe'] });
}

async function firstConsoleLine(child: ChildProcess, consoleLog: string, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`qemu exited ${child.exitCode}`);
    if (existsSync(consoleLog) && /Linux version/.test(readFileSync(consoleLog, 'utf8'))) return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the kernel printed nothing within ${ms} ms`);
}

/** A local guest just booted from our own image: its host key is whatever that image holds, so none is pinned. */
export const executorFor = (port: number, keyFile: string): SshExecutor =>
  new SshExecutor({ host: '127.0.0.1', port, privateKeyPath: keyFile, insecureAcceptAnyHostKey: true, readyTimeoutMs: 20_000 });

async function waitForZfs(child: ChildProcess, exec: SshExecutor, consoleLog: string): Promise<string> {
  const until = Date.now() + SSH_DEADLINE_MS;
  let last = '';
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`qemu exited ${child.exitCode}; console: ${tail(consoleLog)}`);
    try {
      const r = await exec.run(['sh', '-c', 'modprobe zfs && zfs version'], { timeoutMs: 60_000 });
      if (r.code === 0) {
        const m = /^zfs-(\d+\.\d+\.\d+)/m.exec(r.stdout);
        if (!m) throw new Error(`zfs version printed ${JSON.stringify(r.stdout)}`);
        return m[1];
      }
      last = r.stderr;
    } catch (e) {
      last = (e as Error).message;
      await exec.close();
    }
    await new Promise((r) => setTimeout(r, 2000));
  }
  throw new Error(`no SSH answer within ${SSH_DEADLINE_MS} ms (${last}); console: ${tail(consoleLog)}`);
}

const tail = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').slice(-800) : '(none)');

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 5000);
  await gone;
  clearTimeout(t);
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
