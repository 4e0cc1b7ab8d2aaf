import type { Executor } from '../executors/executor.ts';
import { JAIL_CONF_DIR } from '../drivers/jail-layout.ts';
import { virsh } from '../drivers/virsh.ts';
import { VM_RUNTIME_ROOT } from '../drivers/vm-runtime.ts';
import type { HostCore, Section } from './inventory.ts';

/**
 * How often each inventory section is collected between full sweeps:
 * - `every check`: its own command is as cheap as any probe (datasets: one `zfs list`);
 * - a probe: a few cheap commands whose output changes whenever the section's members or their states do
 *   (a pool created, destroyed, degraded or given a vdev; a jail or VM created, started, stopped or removed);
 *   the section is collected again only when that output changed;
 * - neither: at full sweeps only (and after every task, which is a full sweep). What changes only by hand
 *   outside the control plane and is not probed — users, groups, routes, tunables, PCI devices, versions,
 *   pool sizes, a jail's memory use, an edited jail.conf or domain XML — reaches the control plane within one
 *   sweep interval.
 */
type Probe = 'every check' | string[][];

export const PROBES: Partial<Record<Section, Probe>> = {
  datasets: 'every check',
  // the vdev trees and every vdev's state (zpool status of all pools) and the GEOM tree (which disk each pool
  // device lives on); kern.disks is added (free disks)
  pools: [
    ['zpool', 'status'],
    ['sysctl', '-n', 'kern.geom.conftxt'],
  ],
  // running jails (jls) and configured ones (the agent's conf files)
  jails: [
    ['jls', '-v', '--libxo', 'json'],
    ['ls', '-1', JAIL_CONF_DIR],
  ],
  // libvirt's domains with their states, and the agent's VM registrations
  vms: [virsh('list', '--all'), ['ls', '-1', VM_RUNTIME_ROOT]],
};

/**
 * The probe's fingerprint: its commands' exit codes and output (a failing command is a fingerprint too: the
 * section's collection then reports the failure). `null` when the section has no probe.
 */
export async function probeSection(exec: Executor, core: HostCore, section: Section): Promise<string | null> {
  const probe = PROBES[section];
  if (!probe || probe === 'every check') return null;
  const parts: string[] = section === 'pools' ? [core.kernDisks] : [];
  for (const argv of probe) {
    try {
      const r = await exec.run(argv);
      parts.push(`${r.code}\n${r.stdout}`);
    } catch (err) {
      parts.push(`failed\n${(err as Error).message}`);
    }
  }
  return parts.join('\0');
}
