import type { HostCapabilities } from './capabilities.ts';

/**
 * What a host can do is reported by its agent in the inventory's `capabilities` section (its schema:
 * ./capabilities.ts). The control plane refuses a request that needs a capability the
 * node's last inventory says it lacks, with a 409 naming the capability and what the operator must do
 * ({@link missingCapability}); the agent checks again before it acts, since a host may change.
 */
/**
 * __FreeBSD_version from which ctld has `-t` (check the configuration and exit): 13.0. The C ctld of 13.x and 14.x
 * already parses getopt "dtuf:R" and prints `usage: ctld [-d][-u][-f config-file]` / `ctld -t [-u][-f config-file]`
 * (usr.sbin/ctld/ctld.c main, usage; ctld.8 dated 2020-03-31 documents `-t`); only 12.x and older lack it.
 */
export const CTLD_CHECK_FLAG_SINCE = 1300000;
/** libvirt release whose bhyve driver supports virtio-console (the QEMU guest agent channel) */
export const LIBVIRT_VIRTIO_CONSOLE_SINCE = '12.4.0';

/** Compares dotted versions numerically: negative, zero or positive like a sort comparator. */
export function compareVersions(a: string, b: string): number {
  const pa = a.split('.').map((x) => Number.parseInt(x, 10) || 0);
  const pb = b.split('.').map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < Math.max(pa.length, pb.length); i++) {
    const d = (pa[i] ?? 0) - (pb[i] ?? 0);
    if (d) return d;
  }
  return 0;
}

export type CapabilityNeed = 'racct' | 'guest-agent-channel' | 'libvirt' | 'ctld-config';

/** Why a memory limit cannot be set, in the words the API's 409 and the agent's failed task both use. */
export const RACCT_REQUIRED = 'memory limits need RACCT: add kern.racct.enable=1 to /boot/loader.conf and reboot the host';

/**
 * Why a host without a needed capability refuses the request, in words the operator can act on; null when the
 * capabilities allow it. Unknown capabilities (an inventory from an agent that does not report them) allow it:
 * the agent's own check decides then.
 */
export function missingCapability(caps: HostCapabilities | undefined, need: CapabilityNeed): string | null {
  if (!caps) return null;
  switch (need) {
    case 'racct':
      return caps.racct ? null : RACCT_REQUIRED;
    case 'libvirt':
      return caps.libvirtVersion === null ? LIBVIRT_REQUIRED : null;
    case 'guest-agent-channel':
      return guestAgentChannelMissing(caps.libvirtVersion);
    case 'ctld-config':
      return caps.ctldFlags === undefined ? null : ctldFlagsUnmanaged(caps.ctldFlags);
  }
}

/**
 * Why hostmgr cannot manage the host's ctld configuration, from rc.conf's ctld_flags; null when it can. rc.d/ctld
 * passes ctld_flags to ctld, whose getopt string is "dtuf:R" (usr.sbin/ctld/ctld.c main): `-u` makes it read its
 * file as UCL (uclparse.c), `-f path` read another file. hostmgr writes ctl.conf(5) syntax to /etc/ctl.conf, which
 * such a ctld would not read, or not understand: E13 refuses rather than write a file ctld ignores.
 */
export function ctldFlagsUnmanaged(flags: string): string | null {
  const words = flags.trim().split(/\s+/).filter(Boolean);
  let ucl = false;
  let file: string | undefined;
  for (let i = 0; i < words.length; i++) {
    const w = words[i];
    if (!w.startsWith('-') || w === '-' || w === '--') break; // getopt stops at the first operand
    for (let j = 1; j < w.length; j++) {
      if (w[j] === 'u') ucl = true;
      if (w[j] === 'f') {
        file = j + 1 < w.length ? w.slice(j + 1) : words[++i];
        break;
      }
    }
  }
  const shown = `ctld_flags="${flags.trim()}" in /etc/rc.conf`;
  const fix = 'remove it (sysrc ctld_flags="") to let hostmgr manage iSCSI on this host, or manage iSCSI there by hand';
  if (ucl) return `${shown} makes ctld read its configuration as UCL (-u); hostmgr writes ctl.conf(5) syntax to /etc/ctl.conf: ${fix}`;
  if (file !== undefined && file !== '/etc/ctl.conf')
    return `${shown} makes ctld read ${file || 'another file'} (-f), not /etc/ctl.conf, which hostmgr manages: ${fix}`;
  return null;
}

const LIBVIRT_REQUIRED = 'VMs need libvirt: pkg install libvirt, then sysrc libvirtd_enable=YES && service libvirtd start';

/** The guest agent channel's rule alone, for a libvirt version (null: none installed; undefined: not reported). */
export function guestAgentChannelMissing(libvirtVersion: string | null | undefined): string | null {
  if (libvirtVersion === null) return LIBVIRT_REQUIRED;
  if (libvirtVersion === undefined) return null;
  return compareVersions(libvirtVersion, LIBVIRT_VIRTIO_CONSOLE_SINCE) >= 0
    ? null
    : `the guest agent channel needs libvirt ${LIBVIRT_VIRTIO_CONSOLE_SINCE} or newer (the host has ${libvirtVersion}): pkg upgrade libvirt`;
}
