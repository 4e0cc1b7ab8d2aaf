import type { Executor } from '../executors/executor.ts';
import { DomainXml } from '../drivers/domain-xml.ts';
import { hasCdrom, readGuestAgent, readMacs, readVnc, readZvols } from '../drivers/domain-xml-options.ts';
import { domName, domState, dumpXml, listUuids } from '../drivers/virsh.ts';
import { readOrNull } from '../drivers/host-files.ts';
import { listRegistrations, readRegistration, ridOf, vmPaths, type Registration } from '../drivers/vm-runtime.ts';
import { defaultVmOptions } from '#shared/agent-api/vm-defaults';
import { VM_STATES, type VmInventory, type VmState } from '#shared/agent-api/inventory';

// a word this libvirt does not use: reported as libvirt's own "no state" rather than guessed
const asState = (s: string): VmState => ((VM_STATES as readonly string[]).includes(s) ? (s as VmState) : 'no state');

const union = (...lists: string[][]) => [...new Set(lists.flat())].sort();

/**
 * The VM section of the inventory: every libvirt domain named by a RID (`virsh list --all --uuid`, `virsh
 * domname` per UUID, then `virsh domstate` and `virsh dumpxml` by UUID: never by the numeric name, which virsh
 * would try as a domain ID first) joined with the agent's registrations; a registration libvirt does not
 * define is reported as `orphaned`, its options read from the XML it last defined.
 */
export async function collectVms(exec: Executor): Promise<VmInventory[]> {
  // domains named by a guest id are the control plane's VMs; others are left alone
  const domains = new Map<number, string>();
  for (const uuid of await listUuids(exec)) {
    const name = await domName(exec, uuid);
    const rid = name === null ? null : ridOf(name);
    if (rid !== null) domains.set(rid, uuid);
  }
  const rids = new Set([...domains.keys(), ...(await listRegistrations(exec))]);
  const out: VmInventory[] = [];
  for (const rid of [...rids].sort((a, b) => a - b)) {
    const reg = await readRegistration(exec, rid);
    const uuid = domains.get(rid);
    const state = uuid ? await domState(exec, uuid) : null;
    if (uuid && state !== null) {
      out.push(describe(rid, asState(state), DomainXml.parse(await dumpXml(exec, uuid)), reg));
    } else if (reg) {
      const lastXml = await readOrNull(exec, vmPaths(rid).domainXml);
      out.push(describe(rid, 'orphaned', lastXml ? DomainXml.parse(lastXml) : null, reg));
    }
  }
  return out;
}

function describe(rid: number, state: VmState, xml: DomainXml | null, reg: Registration | null): VmInventory {
  const options = defaultVmOptions();
  if (xml) {
    options.qemuGuestAgent = readGuestAgent(xml);
    options.vnc = readVnc(xml);
  }
  if (reg) {
    options.shutdownWaitTime = reg.shutdownWaitTime;
    // the texts count only while their seed is attached (a detached seed is cloud-init off)
    if (!xml || hasCdrom(xml, vmPaths(rid).cloudInitIso)) options.cloudInit = reg.cloudInit;
  }
  return {
    rid,
    domain: String(rid),
    name: xml?.title ?? reg?.name ?? String(rid),
    state,
    options,
    macs: union(xml ? readMacs(xml) : [], reg?.macs ?? []),
    datasets: union(xml ? readZvols(xml) : [], reg?.datasets ?? []),
  };
}
