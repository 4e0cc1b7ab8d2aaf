/**
 * Starting QEMU for the real-OpenZFS guest and waiting for it: the arguments (one place, since a saved machine state
 * resumes only under the arguments it was saved with), the start, the waits for the kernel and for `zfs version`
 * over SSH, and the stop. ./guest.ts boots the guest with these; ./saved-state.ts saves its state.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { SshExecutor } from '#agent/executors/ssh';
import type { GuestImage } from '../../scripts/provision/openzfs-guest.ts';

export type Accelerator = 'kvm' | 'tcg';

export const QEMU = '/usr/bin/qemu-system-x86_64';
/** the kernel prints within a few seconds of start under KVM; a hung KVM guest prints nothing */
const KVM_FIRST_LINE_MS = 10_000;
/** a bound against a hang: ≈ 20 s on an idle machine under TCG, minutes when the machine is busy */
const SSH_DEADLINE_MS = 300_000;

/** The disk a boot runs on: the raw image itself, or a saved state's qcow2 layer over it. */
export interface Drive {
  file: string;
  format: 'raw' | 'qcow2';
  /** `-snapshot`: the boot's writes go to a temporary layer and vanish with it */
  throwaway: boolean;
}

/** QEMU's arguments for the guest; a saved state resumes only under the same ones (saved-state.ts keys on them). */
export function qemuArgs(image: GuestImage, accel: Accelerator, drive: Drive, port: number, consoleLog: string, extra: string[] = []): string[] {
  const args = [
    // one vCPU: under TCG each vCPU is a host thread, and two spent 16 % more CPU for the same work (the
    // differential alone: 218.6 s of CPU in 184.8 s with -smp 2, 184.3 s in 176.6 s with -smp 1)
    ...['-accel', accel, '-smp', '1', '-m', '2048', '-nographic', '-nodefaults', '-no-reboot'],
    ...(drive.throwaway ? ['-snapshot'] : []),
    ...['-serial', `file:${consoleLog}`],
    ...['-kernel', image.kernel, '-initrd', image.initrd],
    ...['-append', 'root=/dev/vda rw console=ttyS0 net.ifnames=0 panic=-1'],
    ...['-drive', `file=${drive.file},if=virtio,format=${drive.format}`],
    ...['-netdev', `user,id=n0,hostfwd=tcp:127.0.0.1:${port}-:22`, '-device', 'virtio-net-pci,netdev=n0'],
    ...extra,
  ];
  if (accel === 'kvm') args.push('-cpu', 'host');
  return args;
}

/** A boot that never answered (the accelerator's failure, not the saved state's). */
export class BootFailed extends Error {}

/** Waits for a freshly started (not resumed) guest: the kernel's first line under KVM, then `zfs version`. */
export async function bootAndWait(child: ChildProcess, accel: Accelerator, port: number, keyFile: string, consoleLog: string): Promise<string> {
  if (accel === 'kvm') await firstConsoleLine(child, consoleLog, KVM_FIRST_LINE_MS).catch((e: Error) => Promise.reject(new BootFailed(e.message)));
  const exec = executorFor(port, keyFile);
  try {
    return await waitForZfs(child, exec, consoleLog, SSH_DEADLINE_MS);
  } catch (e) {
    throw new BootFailed((e as Error).message);
  } finally {
    await exec.close();
  }
}

export const startQemu = (args: string[]): ChildProcess => spawn(QEMU, args, { stdio: ['ignore', 'ignore', 'pipe'] });

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

export async function waitForZfs(child: ChildProcess, exec: SshExecutor, consoleLog: string, deadlineMs: number): Promise<string> {
  const until = Date.now() + deadlineMs;
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
  throw new Error(`no SSH answer within ${deadlineMs} ms (${last}); console: ${tail(consoleLog)}`);
}

/** Polls `zfs version` over SSH until it answers (a cold boot: minutes under TCG; a resumed state: seconds). */
const tail = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8').slice(-800) : '(none)');

export async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise<void>((r) => child.once('exit', () => r()));
  child.kill('SIGTERM');
  const t = setTimeout(() => child.kill('SIGKILL'), 5000);
  await gone;
  clearTimeout(t);
}
