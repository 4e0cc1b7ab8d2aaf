import type { Executor } from '../executors/executor.ts';
import type { HostInventory } from '#shared/agent-api/inventory';
import { getSysctls, listTunables } from '../drivers/sysctl.ts';
import { listDatasets } from '../drivers/zfs/datasets.ts';
import { listSnapshotInventory } from '../drivers/zfs/snapshots.ts';
import { collectPools, freeDisks } from './pools.ts';
import { geomDisks } from '../drivers/geom.ts';
import { collectJails } from './jails.ts';
import { collectVms } from './vms.ts';
import { listPciDevices } from '../drivers/pciconf.ts';
import { listGroups, listUsers } from '../drivers/pw.ts';
import { routeTables } from '../drivers/netstat.ts';
import { probeCapabilities } from '../drivers/host-capabilities.ts';
import { parseBoottime } from '../drivers/boottime.ts';

/**
 * What the agent reports about its host, at start and whenever it changes: identity (hostname, OS, CPUs,
 * memory) always; then one section per capability. A section whose commands fail is left out (undefined), so
 * the control plane keeps what it knew rather than seeing the pools or jails vanish; its error is listed in
 * `collectErrors`.
 */

/** The identity, and `kern.disks` (the free disks are the disks no pool uses). */
export interface HostCore {
  identity: Pick<HostInventory, 'hostname' | 'os' | 'cpus' | 'memoryBytes' | 'bootTime'>;
  kernDisks: string;
}

export async function readCore(exec: Executor): Promise<HostCore> {
  const core = await getSysctls(exec, ['kern.hostname', 'kern.ostype', 'kern.osrelease', 'hw.ncpu', 'hw.physmem', 'kern.disks', 'kern.boottime']);
  const need = (name: string) => {
    const v = core.get(name);
    if (v === undefined) throw new Error(`sysctl ${name}: not reported by the host`);
    return v;
  };
  return {
    identity: {
      hostname: need('kern.hostname'),
      os: `${need('kern.ostype')} ${core.get('kern.osrelease') ?? ''}`.trim(),
      cpus: Number(need('hw.ncpu')),
      memoryBytes: Number(need('hw.physmem')),
      // the host's uptime (the agent's own start time says nothing about it); left out when not reported
      ...bootTimeOf(core.get('kern.boottime')),
    },
    kernDisks: core.get('kern.disks') ?? '',
  };
}

function bootTimeOf(text: string | undefined): Pick<HostInventory, 'bootTime'> {
  const bootTime = text === undefined ? undefined : parseBoottime(text);
  return bootTime === undefined ? {} : { bootTime };
}

/** The sections, in the order their errors are listed; `pools` also gives `disks`. */
export const SECTIONS = {
  pools: async (exec: Executor, core: HostCore): Promise<Partial<HostInventory>> => {
    const { pools, devices } = await collectPools(exec);
    return { pools, disks: freeDisks(core.kernDisks, devices, await geomDisks(exec)) };
  },
  datasets: async (exec: Executor) => ({ datasets: await listDatasets(exec) }),
  // at sweeps and after every task (a snapshot operation is one)
  snapshots: async (exec: Executor) => ({ snapshots: await listSnapshotInventory(exec) }),
  tunables: async (exec: Executor) => ({ tunables: await listTunables(exec) }),
  jails: async (exec: Executor) => ({ jails: await collectJails(exec) }),
  vms: async (exec: Executor) => ({ vms: await collectVms(exec) }),
  pciDevices: async (exec: Executor) => ({ pciDevices: await listPciDevices(exec) }),
  users: async (exec: Executor) => ({ users: await listUsers(exec) }),
  groups: async (exec: Executor) => ({ groups: await listGroups(exec) }),
  // routing tables per FIB (E18's next hops)
  routes: async (exec: Executor) => ({ routes: await routeTables(exec) }),
  // release, RACCT, OpenZFS and libvirt versions: what the control plane checks requests against (409)
  capabilities: async (exec: Executor) => ({ capabilities: await probeCapabilities(exec) }),
} satisfies Record<string, (exec: Executor, core: HostCore) => Promise<Partial<HostInventory>>>;

export type Section = keyof typeof SECTIONS;
export const SECTION_NAMES = Object.keys(SECTIONS) as Section[];

/** A section's fields, or why its commands failed. */
export type SectionResult = { fields: Partial<HostInventory> } | { error: string };

export async function collectSection(exec: Executor, core: HostCore, section: Section): Promise<SectionResult> {
  try {
    return { fields: await SECTIONS[section](exec, core) };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/** The inventory from the identity and each section's latest result. */
export function assembleInventory(core: HostCore, results: ReadonlyMap<Section, SectionResult>): HostInventory {
  const inventory: HostInventory = { ...core.identity };
  const errors: string[] = [];
  for (const section of SECTION_NAMES) {
    const r = results.get(section);
    if (!r) continue;
    if ('error' in r) errors.push(`${section}: ${r.error}`);
    else Object.assign(inventory, r.fields);
  }
  if (errors.length) inventory.collectErrors = errors;
  return inventory;
}

/** Every section, now (registration, the doctor, the host check). */
export async function collectInventory(exec: Executor): Promise<HostInventory> {
  const core = await readCore(exec);
  const results = new Map<Section, SectionResult>();
  for (const section of SECTION_NAMES) results.set(section, await collectSection(exec, core, section));
  return assembleInventory(core, results);
}
