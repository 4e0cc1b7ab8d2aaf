import type { Executor } from '../executors/executor.ts';
import { DomainXml } from '../drivers/domain-xml.ts';
import { define, domState, dumpXml } from '../drivers/virsh.ts';
import { writeText } from '../drivers/host-files.ts';
import { newRegistration, readRegistration, vmPaths, writeRegistration, type Registration } from '../drivers/vm-runtime.ts';

/**
 * What the VM option jobs share: the host's own check of the VM's state (the store's view may be a
 * heartbeat old), and the read–patch–define cycle on the persistent domain definition.
 */
export async function requireShutOffOnHost(exec: Executor, rid: number, domain: string): Promise<void> {
  const state = await domState(exec, domain);
  if (state === null) throw new Error(`vm_orphaned: libvirt does not define domain ${domain} (vm ${rid})`);
  if (state !== 'shut off') throw new Error(`vm_not_shut_off: vm ${rid} is ${state} on the host; nothing changed`);
}

/** Patches the persistent definition and re-defines it; returns the definition libvirt now holds. */
export async function redefine(exec: Executor, rid: number, domain: string, patch: (d: DomainXml) => void | Promise<void>): Promise<DomainXml> {
  const d = DomainXml.parse(await dumpXml(exec, domain));
  await patch(d);
  const p = vmPaths(rid);
  // kept as the registration's last definition: an orphaned registration still tells what the VM was
  await writeText(exec, p.domainXml, d.toString());
  await define(exec, p.domainXml);
  return DomainXml.parse(await dumpXml(exec, domain));
}

/** Reads, changes and writes the agent's registration of the VM (created when missing). */
export async function updateRegistration(exec: Executor, rid: number, name: string, change: (r: Registration) => void): Promise<Registration> {
  const reg = (await readRegistration(exec, rid)) ?? newRegistration(rid, name);
  change(reg);
  await writeRegistration(exec, reg);
  return reg;
}
