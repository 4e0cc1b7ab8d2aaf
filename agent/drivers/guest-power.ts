import { runChecked, type Executor } from '../executors/executor.ts';
import { configuredJails, isRunning, startJail, stopJail } from './jail.ts';
import { domState } from './virsh.ts';

/**
 * Stopping and starting the guest that lives on a dataset, whichever kind it is: a jail through jail(8) with
 * its conf (its hooks run), a VM through libvirt (`virsh destroy` / `virsh start`; its disks are about to be
 * replaced, so there is nothing to shut down gracefully for).
 */
export interface GuestRef {
  type: 'jail' | 'vm';
  id: number;
  name: string;
}

export interface GuestPower {
  /** whether the guest is defined on this host at all */
  present: boolean;
  running(): Promise<boolean>;
  stop(): Promise<void>;
  start(): Promise<void>;
}

const absent: GuestPower = { present: false, running: async () => false, stop: async () => undefined, start: async () => undefined };

export async function guestPower(exec: Executor, g: GuestRef | null): Promise<GuestPower> {
  if (!g) return absent;
  if (g.type === 'jail') {
    const j = (await configuredJails(exec)).find((c) => c.ctid === g.id);
    if (!j) return absent;
    return {
      present: true,
      running: () => isRunning(exec, j.name),
      stop: () => stopJail(exec, j.name, j.files.conf),
      start: () => startJail(exec, j.name, j.files.conf),
    };
  }
  const domain = String(g.id);
  if ((await domState(exec, domain)) === null) return absent;
  return {
    present: true,
    running: async () => (await domState(exec, domain)) === 'running',
    stop: async () => void (await runChecked(exec, ['virsh', 'destroy', domain])),
    start: async () => void (await runChecked(exec, ['virsh', 'start', domain])),
  };
}
