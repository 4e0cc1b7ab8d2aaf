import type { Executor } from '../executors/executor.ts';
import { installPrivateFile } from './certificate-files.ts';
import { listDir, readOrNull } from './host-files.ts';
import { DEFAULT_SHUTDOWN_WAIT_TIME } from '#shared/agent-api/vm-defaults';
import type { CloudInitOptions } from '#shared/agent-api/inventory';

/**
 * The agent's own runtime files for a VM (its "registration"), beside what libvirt keeps:
 *   /var/db/hostmgr/vms/<rid>/vm.json           what libvirt has no place for (name, shutdown wait, cloud-init texts, MACs, datasets)
 *   /var/db/hostmgr/vms/<rid>/domain.xml        the XML last handed to `virsh define`
 *   /var/db/hostmgr/vms/<rid>/cloud-init/       user-data, meta-data, network-config
 *   /var/db/hostmgr/vms/<rid>/cloud-init.iso    the NoCloud seed built from them
 * plus libvirt's per-domain runtime files under /var/run/libvirt/bhyve/. A registration whose domain
 * libvirt no longer defines is orphaned; E10 removes these files (never the datasets).
 */
export const VM_RUNTIME_ROOT = '/var/db/hostmgr/vms';
const LIBVIRT_BHYVE_RUN = '/var/run/libvirt/bhyve';

export const vmPaths = (rid: number) => {
  const dir = `${VM_RUNTIME_ROOT}/${rid}`;
  return {
    dir,
    registration: `${dir}/vm.json`,
    domainXml: `${dir}/domain.xml`,
    cloudInitDir: `${dir}/cloud-init`,
    cloudInitIso: `${dir}/cloud-init.iso`,
  };
};

/** libvirt's per-domain runtime files (pid, status XML, the guest agent socket) */
export const libvirtRuntimeFiles = (domain: string) => ['pid', 'xml', 'agent'].map((ext) => `${LIBVIRT_BHYVE_RUN}/${domain}.${ext}`);
export const guestAgentSocket = (domain: string) => `${LIBVIRT_BHYVE_RUN}/${domain}.agent`;

export interface Registration {
  rid: number;
  name: string;
  shutdownWaitTime: number;
  cloudInit: CloudInitOptions;
  macs: string[];
  datasets: string[];
}

export const newRegistration = (rid: number, name: string): Registration => ({
  rid,
  name,
  shutdownWaitTime: DEFAULT_SHUTDOWN_WAIT_TIME,
  cloudInit: { data: '', metadata: '', networkConfig: '' },
  macs: [],
  datasets: [],
});

/** The RID a domain or runtime directory is named by (guest ids 1–9999); null for any other name. */
export const ridOf = (name: string): number | null => (/^[1-9]\d{0,3}$/.test(name) ? Number(name) : null);

/** RIDs that have a runtime directory. */
export async function listRegistrations(exec: Executor): Promise<number[]> {
  return (await listDir(exec, VM_RUNTIME_ROOT))
    .map((l) => ridOf(l.trim()))
    .filter((rid) => rid !== null)
    .sort((a, b) => a - b);
}

export async function readRegistration(exec: Executor, rid: number): Promise<Registration | null> {
  const text = await readOrNull(exec, vmPaths(rid).registration);
  if (text === null) return null;
  const raw = JSON.parse(text) as Partial<Registration>;
  const base = newRegistration(rid, raw.name ?? String(rid));
  return { ...base, ...raw, rid, cloudInit: { ...base.cloudInit, ...raw.cloudInit } };
}

/** vm.json holds the cloud-init texts (password hashes, keys): mode 0600 from its first byte. */
export async function writeRegistration(exec: Executor, reg: Registration): Promise<void> {
  await installPrivateFile(exec, vmPaths(reg.rid).registration, JSON.stringify(reg, null, 2) + '\n');
}
