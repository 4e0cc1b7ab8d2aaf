import type { Migration } from 'kysely/migration';
import * as m0001 from './0001_foundation.ts';
import * as m0002 from './0002_backup_events_search.ts';
import * as m0010 from './0010_tasks.ts';
import * as m0011 from './0011_node_agents.ts';
import * as m0016 from './0016_task_send_attempts.ts';
import * as m0017 from './0017_node_ssh_host_keys.ts';
import * as m0020 from './0020_pools_tunables.ts';
import * as m0021 from './0021_telemetry.ts';
import * as m0030 from './0030_guests.ts';
import * as m0040 from './0040_vm_mac_objects.ts';
import * as m0045 from './0045_scrub_task_secrets.ts';
// host users and groups (E1, E2)
import * as m0050 from './0050_host_groups.ts';
import * as m0055 from './0055_ppt_devices.ts';
// iSCSI (E13)
import * as m0060 from './0060_iscsi.ts';
// firewall NAT (E18)
import * as m0065 from './0065_firewall_nat.ts';
import * as m0066 from './0066_node_routes.ts';
// limits on failed authentication
import * as m0075 from './0075_auth_failures.ts';
// task cancellation
import * as m0080 from './0080_task_cancellation.ts';
// audit log
import * as m0070 from './0070_audit_log.ts';
// backup jobs that run
import * as m0085 from './0085_backup_job_targets.ts';
import * as m0095 from './0095_backup_runs.ts';
// backup restores (E15)
import * as m0100 from './0100_backup_event_tasks.ts';
import * as m0105 from './0105_certificates.ts';
// cluster join (E16)
import * as m0090 from './0090_cluster_key.ts';
// notification delivery and task events
import * as m0110 from './0110_notification_delivery.ts';
import * as m0111 from './0111_node_offline_notified.ts';
// what a queued task's request changed, put back when it is cancelled
import * as m0113 from './0113_task_undo.ts';
// a cancelled backup run is recorded cancelled
import * as m0121 from './0121_backup_event_cancelled.ts';
import * as m0130 from './0130_node_telemetry_watch.ts';

/**
 * Every migration, in order. Listed statically (not read from disk) so the scripts and the agent
 * can be bundled. Later capabilities append their own files here, in their number ranges:
 * 0002–0009 cluster/notifications/backups, 0010–0019 tasks/queue/nodes, 0020–0029 pools/tunables/telemetry,
 * 0030–0039 guests and jails, 0040–0049 VMs. Keys sort by name, so the numbers fix the order.
 */
export const migrations: Record<string, Migration> = {
  '0001_foundation': m0001,
  '0002_backup_events_search': m0002,
  '0010_tasks': m0010,
  '0011_node_agents': m0011,
  '0016_task_send_attempts': m0016,
  '0017_node_ssh_host_keys': m0017,
  '0020_pools_tunables': m0020,
  '0021_telemetry': m0021,
  '0030_guests': m0030,
  '0040_vm_mac_objects': m0040,
  '0045_scrub_task_secrets': m0045,
  // host users and groups (E1, E2)
  '0050_host_groups': m0050,
  '0055_ppt_devices': m0055,
  // iSCSI (E13)
  '0060_iscsi': m0060,
  // firewall NAT (E18)
  '0065_firewall_nat': m0065,
  '0066_node_routes': m0066,
  // limits on failed authentication
  '0075_auth_failures': m0075,
  // task cancellation
  '0080_task_cancellation': m0080,
  // audit log
  '0070_audit_log': m0070,
  // backup jobs that run
  '0085_backup_job_targets': m0085,
  // backup runs: each job's next scheduled slot
  '0095_backup_runs': m0095,
  // backup restores (E15)
  '0100_backup_event_tasks': m0100,
  // managed TLS certificates over ACME
  '0105_certificates': m0105,
  // cluster join (E16): the hashed cluster key
  '0090_cluster_key': m0090,
  // notification delivery and task events
  '0110_notification_delivery': m0110,
  '0111_node_offline_notified': m0111,
  '0113_task_undo': m0113,
  '0121_backup_event_cancelled': m0121,
  // telemetry sent as taken while someone reads it, in batches otherwise
  '0130_node_telemetry_watch': m0130,
};
