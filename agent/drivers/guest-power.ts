import type { Executor } from '../executors/executor.ts';
import { configuredJails, isRunning, startJail, stopJail } from './jail.ts';
import { destroyDomain, domState, startDomain } from './virsh.ts';
import { vmDomainUuid } from './vm-lookup.ts';

/**
 * Stopping and starting the guest that lives on a dataset, whichever kind it is: a jail through jail(8) with
 * its conf (its hooks run), a VM through libvirt (`virsh destroy` / `virsh start`; its disks are about to be
 * replaced, so there is nothing to shut down gracefully for). A VM's domain is addressed by its UUID: its RID
 * could be another running VM's domain ID.
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
  const uuid = await vmDomainUuid(exec, g.id);
  if (uuid === null || (await domState(exec, uuid)) === null) return absent;
  return {
    present: true,
    running: async () => (await domState(exec, uuid)) === 'running',
    stop: () => destroyDomain(exec, uuid),
    start: () => startDomain(exec, uuid),
  };
}
