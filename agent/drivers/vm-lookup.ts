import type { Executor } from '../executors/executor.ts';
import { DomainXml } from './domain-xml.ts';
import { readOrNull } from './host-files.ts';
import { findDomain } from './virsh.ts';
import { vmPaths } from './vm-runtime.ts';

/**
 * The UUID of a VM's libvirt domain (named by its RID), which is how the agent addresses it (virsh.ts says
 * why). The definition the agent last wrote (the registration's domain.xml) names the UUID to try first.
 */
export async function vmDomainUuid(exec: Executor, rid: number, domain: string = String(rid)): Promise<string | null> {
  const last = await readOrNull(exec, vmPaths(rid).domainXml);
  let hint: string | undefined;
  try {
    hint = last ? DomainXml.parse(last).uuid : undefined;
  } catch {
    hint = undefined;
  }
  return findDomain(exec, domain, hint);
}
