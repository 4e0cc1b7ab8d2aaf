/**
 * Names for the API shapes the console reads, each taken from the generated types of the OpenAPI document
 * (scripts/build/api-types.ts): none is written by hand, so `tsc -p console` fails when an answer stops
 * carrying a field a page reads.
 */
import type { ApiBody, ApiData } from '../.generated/api-types.ts';

export type { ApiBody, ApiData };
/** One item of a paged list answer. */
type Item<K extends keyof ApiData> = ApiData[K] extends { data: Array<infer T> } ? T : never;

export type Role = ApiData['GET /api/auth/whoami']['role'];
export type Task = ApiData['GET /api/tasks/{id}'];
export type NodeView = ApiData['GET /api/cluster/nodes/{nodeId}'];
/** A node's inventory as the node read gives it (pools, vdevs, disks, jails, VMs). */
export type Inventory = NonNullable<NodeView['inventory']>;
export type Notification = Item<'GET /api/notifications'>;
export type Telemetry = ApiData['GET /api/zfs/dashboard/history'];
export type TelemetryDelta = ApiData['GET /api/zfs/dashboard/history/delta'];
export type Certificate = Item<'GET /api/certificates'>;
export type BackupJob = Item<'GET /api/cluster/backups/jobs'>;
export type BackupEvent = Item<'GET /api/cluster/backups/events/remote'>;
export type AuditEntry = Item<'GET /api/audit'>;
export type PoolPoint = Telemetry['pools'][number]['points'][number];
export type Channel = ApiData['GET /api/notifications/channels'][number];
export type Rule = ApiData['GET /api/notifications/rules']['rules'][number];
export type GuestSnapshotList = ApiData['GET /api/guests/{guestType}/{guestId}/snapshots'];
export type GuestSnapshot = GuestSnapshotList['snapshots'][number];
