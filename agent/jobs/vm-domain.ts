import type { Executor } from '../executors/executor.ts';
import { DomainXml } from '../drivers/domain-xml.ts';
import { define, domState, dumpXml } from '../drivers/virsh.ts';
import { installPrivateFile } from '../drivers/certificate-files.ts';
import { vmDomainUuid } from '../drivers/vm-lookup.ts';
import { newRegistration, readRegistration, vmPaths, writeRegistration, type Registration } from '../drivers/vm-runtime.ts';

/**
 * What the VM option jobs share: the host's own check of the VM's state (the store's view may be a
 * heartbeat old), and the read–patch–define cycle on the persistent domain definition.
 */

/** Checks that libvirt defines the VM's domain and that it is shut off; returns the domain's UUID. */
export async function requireShutOffOnHost(exec: Executor, rid: number, domain: string): Promise<string> {
  const uuid = await vmDomainUuid(exec, rid, domain);
  const state = uuid === null ? null : await domState(exec, uuid);
  if (uuid === null || state === null) throw new Error(`vm_orphaned: libvirt does not define domain ${domain} (vm ${rid})`);
  if (state !== 'shut off') throw new Error(`vm_not_shut_off: vm ${rid} is ${state} on the host; nothing changed`);
  return uuid;
}

/**
 * Patches the persistent definition (read with its secrets, so the VNC password survives) and re-defines
 * it; returns the definition libvirt now holds.
 */
export async function redefine(exec: Executor, rid: number, uuid: string, patch: (d: DomainXml) => void | Promise<void>): Promise<DomainXml> {
  const d = DomainXml.parse(await dumpXml(exec, uuid));
  if (d.uuid !== uuid) throw new Error(`libvirt answered for domain ${d.uuid ?? '?'} when asked for ${uuid}; nothing changed`);
  await patch(d);
  const p = vmPaths(rid);
  // kept as the registration's last definition: an orphaned registration still tells what the VM was; it may
  // hold the VNC password, so it is never readable by others
  await installPrivateFile(exec, p.domainXml, d.toString());
  await define(exec, p.domainXml);
  return DomainXml.parse(await dumpXml(exec, uuid));
}

/** Reads, changes and writes the agent's registration of the VM (created when missing). */
export async function updateRegistration(exec: Executor, rid: number, name: string, change: (r: Registration) => void): Promise<Registration> {
  const reg = (await readRegistration(exec, rid)) ?? newRegistration(rid, name);
  change(reg);
  await writeRegistration(exec, reg);
  return reg;
}
