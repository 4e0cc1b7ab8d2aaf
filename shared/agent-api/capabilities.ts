import type { FromSchema } from 'json-schema-to-ts';

/**
 * What a host can do, as its agent detects it (agent/drivers/host-capabilities.ts) and reports it in the
 * inventory's `capabilities` section. The control plane refuses a request that needs a capability the node's
 * last inventory says it lacks (shared/agent-api/capability-rules.ts); the agent checks again before it acts.
 */
export const capabilitiesSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['osrelease', 'osreldate', 'racct'],
  properties: {
    /** `kern.osrelease`, e.g. 14.3-RELEASE-p2 */
    osrelease: { type: 'string', maxLength: 64 },
    /** `kern.osreldate` (__FreeBSD_version), e.g. 1403000 */
    osreldate: { type: 'integer', minimum: 0, maximum: 99999999 },
    /** `zfs version`'s userland line; null without ZFS */
    zfsVersion: { type: ['string', 'null'], maxLength: 128 },
    /** libvirt's version (major.minor.micro) from `virsh version`; null without libvirt */
    libvirtVersion: { type: ['string', 'null'], maxLength: 32 },
    /** kern.racct.enable = 1: rctl(8) rules (jail memory limits) work */
    racct: { type: 'boolean' },
    /** rc.conf's ctld_flags (`sysrc -n ctld_flags`; empty when unset): -u or -f make /etc/ctl.conf not ctld's file */
    ctldFlags: { type: 'string', maxLength: 1024 },
  },
} as const;

export type HostCapabilities = FromSchema<typeof capabilitiesSchema>;
