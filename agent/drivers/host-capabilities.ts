import type { HostCapabilities } from '#shared/agent-api/capabilities';
import type { Executor } from '../executors/executor.ts';
import { getSysctls } from './sysctl.ts';
import { readCtldFlags } from './ctld.ts';

/**
 * Detects what the host can do (shared/agent-api/capability-rules.ts): release and __FreeBSD_version, RACCT,
 * OpenZFS and libvirt versions, rc.conf's ctld_flags. A program that is missing or fails gives null for its part, never an error.
 */

/** `virsh version`: "Using library: libvirt 11.1.0" (tools/virsh-host.c cmdVersion) */
export function parseVirshVersion(stdout: string): string | null {
  return /^Using library: libvirt (\d+\.\d+\.\d+)/m.exec(stdout)?.[1] ?? null;
}

/** `zfs version`: the first line, e.g. zfs-2.2.7-FreeBSD_ge269af1b3 */
export function parseZfsVersion(stdout: string): string | null {
  const line = stdout.split('\n')[0]?.trim();
  return line && /^zfs-\d/.test(line) ? line : null;
}

export async function probeCapabilities(exec: Executor): Promise<HostCapabilities> {
  // a host without these OIDs (not FreeBSD: Linux's sysctl knows none of them and exits 255) has none of them
  const sysctls = await getSysctls(exec, ['kern.osrelease', 'kern.osreldate', 'kern.racct.enable']).catch(() => new Map<string, string>());
  const zfs = await exec.run(['zfs', 'version']).catch(() => null);
  const virsh = await exec.run(['virsh', '-c', 'bhyve:///system', 'version']).catch(() => null);
  // rc.conf's ctld_flags; not reported when sysrc gives no answer (the agent checks again before E13 writes)
  const ctldFlags = await readCtldFlags(exec);
  return {
    osrelease: sysctls.get('kern.osrelease') ?? '',
    osreldate: Number.parseInt(sysctls.get('kern.osreldate') ?? '0', 10) || 0,
    // an unknown OID (a kernel without RACCT) means no RACCT either
    racct: sysctls.get('kern.racct.enable') === '1',
    zfsVersion: zfs?.code === 0 ? parseZfsVersion(zfs.stdout) : null,
    libvirtVersion: virsh?.code === 0 ? parseVirshVersion(virsh.stdout) : null,
    ...(ctldFlags === null ? {} : { ctldFlags }),
  };
}
