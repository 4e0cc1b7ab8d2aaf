import type { Executor } from '../executors/executor.ts';
import type { HostInventory } from '#shared/agent-api/inventory';
import { getSysctls, listTunables } from '../drivers/sysctl.ts';
import { listDatasets } from '../drivers/zfs/datasets.ts';
import { collectPools, freeDisks } from './pools.ts';
import { collectJails } from './jails.ts';
import { collectVms } from './vms.ts';
import { listPciDevices } from '../drivers/pciconf.ts';
import { listGroups, listUsers } from '../drivers/pw.ts';
import { routeTables } from '../drivers/netstat.ts';
import { probeCapabilities } from '../drivers/host-capabilities.ts';

/**
 * What the agent reports about its host, at start and whenever it changes: identity (hostname, OS, CPUs,
 * memory) always; then one section per capability. A section whose commands fail is left out (undefined), so
 * the control plane keeps what it knew rather than seeing the pools or jails vanish; its error is listed in
 * `collectErrors`.
 */
const SECTIONS: { [K in keyof HostInventory]?: (exec: Executor) => Promise<HostInventory[K]> } = {
  datasets: (exec) => listDatasets(exec),
  tunables: (exec) => listTunables(exec),
  jails: (exec) => collectJails(exec),
  vms: (exec) => collectVms(exec),
  pciDevices: (exec) => listPciDevices(exec),
  users: (exec) => listUsers(exec),
  groups: (exec) => listGroups(exec),
  // routing tables per FIB (E18's next hops)
  routes: (exec) => routeTables(exec),
  // release, RACCT, OpenZFS and libvirt versions: what the control plane checks requests against (409)
  capabilities: (exec) => probeCapabilities(exec),
};

export async function collectInventory(exec: Executor): Promise<HostInventory> {
  const core = await getSysctls(exec, ['kern.hostname', 'kern.ostype', 'kern.osrelease', 'hw.ncpu', 'hw.physmem', 'kern.disks']);
  const need = (name: string) => {
    const v = core.get(name);
    if (v === undefined) throw new Error(`sysctl ${name}: not reported by the host`);
    return v;
  };
  const inventory: HostInventory = {
    hostname: need('kern.hostname'),
    os: `${need('kern.ostype')} ${core.get('kern.osrelease') ?? ''}`.trim(),
    cpus: Number(need('hw.ncpu')),
    memoryBytes: Number(need('hw.physmem')),
  };
  const errors: string[] = [];
  try {
    const { pools, devices } = await collectPools(exec);
    inventory.pools = pools;
    inventory.disks = freeDisks(core.get('kern.disks') ?? '', devices);
  } catch (e) {
    errors.push(`pools: ${(e as Error).message}`);
  }
  for (const [section, collect] of Object.entries(SECTIONS)) {
    try {
      inventory[section] = await collect!(exec);
    } catch (e) {
      errors.push(`${section}: ${(e as Error).message}`);
    }
  }
  if (errors.length) inventory.collectErrors = errors;
  return inventory;
}
