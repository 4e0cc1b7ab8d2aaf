import type { Migration } from 'kysely';
import * as m0001 from './0001_foundation.ts';
import * as m0030 from './0030_guests.ts';

/**
 * Every migration, in order. Listed statically (not read from disk) so the scripts and the agent
 * can be bundled. Later capabilities append their own files here, in their number ranges:
 * 0002–0009 cluster/notifications/backups, 0010–0019 tasks/queue/nodes, 0020–0029 pools/tunables/telemetry,
 * 0030–0039 guests and jails, 0040–0049 VMs. Keys sort by name, so the numbers fix the order.
 */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0030_guests': m0030,
};
