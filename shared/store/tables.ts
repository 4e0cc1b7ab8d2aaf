import type { ColumnType, Generated, Kysely, Selectable, Transaction } from 'kysely';
import type { TaskStatus } from '#shared/agent-api/task-status';

/** Timestamps: read as Date, written as Date or ISO string, defaulted by the database. */
type CreatedAt = ColumnType<Date, Date | string | undefined, never>;
type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
type Json<T> = ColumnType<T, string | T, string | T>;

export interface ApiTokensTable {
  id: Generated<number>;
  name: string;
  role: string;
  token_hash: string;
  node_id: string | null;
  expires_at: NullableTimestamp;
  revoked_at: NullableTimestamp;
  created_at: CreatedAt;
  /** when the token was last accepted, to the minute (migration 0070) */
  last_used_at: ColumnType<Date | null, never, Date | string | null>;
}

/** Failed authentications of one source address in its current fixed window. */
export interface AuthFailuresTable {
  source: string;
  window_started_at: ColumnType<Date, Date | string, Date | string>;
  failures: number;
}

export interface NodesTable {
  /** the host's UUID */
  id: string;
  name: string;
  ip: string;
  /** pending until admitted by E16, then member */
  status: string;
  last_seen_at: NullableTimestamp;
  inventory: Json<Record<string, unknown>>;
  created_at: CreatedAt;
  updated_at: Timestamp;
  // ── the node's agent (migration 0011) ──
  heartbeat_interval_s: ColumnType<number, number | undefined, number>;
  agent_version: ColumnType<string, string | undefined, string>;
  agent_started_at: NullableTimestamp;
  registered_at: NullableTimestamp;
  inventory_hash: ColumnType<string, string | undefined, string>;
  inventory_at: NullableTimestamp;
  /** SSH host key fingerprints (`SHA256:…`) the node reported (migration 0017) */
  ssh_host_keys: ColumnType<string[], string | undefined, string>;
  /** when `node_offline` was raised for its current silence (migration 0111) */
  offline_notified_at: NullableTimestamp;
  /** until when an E14 or console read marks its telemetry watched (migration 0130) */
  telemetry_watched_until: NullableTimestamp;
}

export interface ClusterNotesTable {
  id: Generated<number>;
  title: string;
  content: string;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface NotificationsTable {
  id: Generated<number>;
  kind: string;
  title: string;
  body: string;
  severity: string;
  /** global notifications are the ones E24 dismisses */
  scope: string;
  node_id: string | null;
  created_at: CreatedAt;
  dismissed_at: NullableTimestamp;
}

export interface NotificationTemplatesTable {
  key: string;
  label: string;
  description: string;
  target_type: string;
  default_config: string;
}

export interface NotificationTargetsTable {
  target_type: string;
  key: string;
  label: string;
}

export interface NotificationRulesTable {
  id: Generated<number>;
  template_key: string;
  target_key: string;
  /** `auto` rules are created by synchronisation; `custom` ones by operators */
  kind: string;
  active: boolean;
  discord_enabled: boolean;
  email_enabled: boolean;
  ntfy_enabled: boolean;
  pushover_enabled: boolean;
  ui_enabled: boolean;
  config: string;
  created_at: CreatedAt;
  updated_at: Timestamp;
  /** tombstone: a deleted rule keeps its row so synchronisation does not bring it back */
  deleted_at: NullableTimestamp;
  // ── delivery (migration 0110) ──
  webhook_enabled: ColumnType<boolean, boolean | undefined, boolean>;
  /** task events: only tasks of this kind / on this node (null: any) */
  match_task_kind: ColumnType<string | null, string | null | undefined, string | null>;
  match_node_id: ColumnType<string | null, string | null | undefined, string | null>;
  /** JSON `{channel: {error, at}}`: channels that gave up delivering; cleared by the channel's next success */
  delivery_failures: ColumnType<string, string | undefined, string>;
}

// ── notification delivery (migration 0110) ──
export interface NotificationChannelsTable {
  channel: string;
  /** JSON, answered by the API */
  settings: string;
  /** JSON, write-only: never answered, never logged */
  secrets: string;
  updated_at: Timestamp;
}

export interface NotificationEventsTable {
  id: Generated<number>;
  /** a notification kind (`task_failed`, `backup_failed` …) or a task event (`task.failed`, `task.succeeded`) */
  type: string;
  title: string;
  body: string;
  severity: string;
  node_id: string | null;
  target_key: string | null;
  /** JSON `{type, id, kind?, status?}` */
  subject: string;
  created_at: CreatedAt;
}

export interface NotificationDeliveriesTable {
  id: Generated<number>;
  event_id: number;
  rule_id: number;
  channel: string;
  attempts: ColumnType<number, number | undefined, number>;
  next_attempt_at: ColumnType<Date, Date | string | undefined, Date | string>;
  last_error: ColumnType<string, string | undefined, string>;
  delivered_at: NullableTimestamp;
  gave_up_at: NullableTimestamp;
  created_at: CreatedAt;
}

export interface BackupJobsTable {
  id: Generated<number>;
  name: string;
  /** the runner node */
  node_id: string;
  mode: string;
  source_dataset: string;
  target_endpoint: string;
  schedule: string;
  enabled: boolean;
  created_at: CreatedAt;
  updated_at: Timestamp;
  /** the source is a guest's datasets (resolved at each run) when set, else `source_dataset` (migration 0085) */
  guest_type: ColumnType<'jail' | 'vm' | null, 'jail' | 'vm' | null | undefined, 'jail' | 'vm' | null>;
  guest_id: ColumnType<number | null, number | null | undefined, number | null>;
  /** target: a member node's dataset (`target_node_id`), or an SSH endpoint with a pinned host key */
  target_node_id: ColumnType<string | null, string | null | undefined, string | null>;
  target_dataset: ColumnType<string, string | undefined, string>;
  target_ssh_user: ColumnType<string | null, string | null | undefined, string | null>;
  target_ssh_host: ColumnType<string | null, string | null | undefined, string | null>;
  target_ssh_port: ColumnType<number | null, number | null | undefined, number | null>;
  /** `<type> <base64>` as in known_hosts */
  target_ssh_host_key: ColumnType<string | null, string | null | undefined, string | null>;
  /** job snapshots kept on each side */
  retention: ColumnType<number, number | undefined, number>;
  /** when the next scheduled run is due; null: disabled or unscheduled (migration 0095) */
  next_run_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface BackupEventsTable {
  id: Generated<number>;
  job_id: number;
  node_id: string;
  mode: string;
  source_dataset: string;
  target_endpoint: string;
  status: string;
  output: string;
  error: string;
  created_at: CreatedAt;
  started_at: NullableTimestamp;
  completed_at: NullableTimestamp;
  updated_at: Timestamp;
  /** set by a trigger (migration 0002): the event's row in backup_event_search_docs */
  search_doc_id: Generated<number>;
  /** the task whose start and end move this event (backup runs, E15 restores; migration 0100) */
  task_id: ColumnType<number | null, number | null | undefined, number | null>;
}

/** E12's search text, once per distinct value (migration 0002). */
export interface BackupEventSearchDocsTable {
  id: Generated<number>;
  doc: string;
}

/** Number of backup events per (search document, node, job), kept by triggers (migration 0002). */
export interface BackupEventCountsTable {
  search_doc_id: number;
  node_id: string;
  job_id: number;
  n: number;
}

export interface GuestsTable {
  /** CTID of a jail or RID of a VM: one id space across the cluster */
  id: number;
  type: 'jail' | 'vm';
  node_id: string;
  name: string;
  state: string;
  config: Json<Record<string, unknown>>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

// ── pools, tunables, telemetry (migrations 0020–0021) ──

export interface PoolsTable {
  guid: string;
  node_id: string;
  name: string;
  health: string;
  size: number;
  allocated: number;
  free: number;
  vdevs: Json<unknown[]>;
  updated_at: Timestamp;
}

export interface PoolDevicesTable {
  id: Generated<number>;
  node_id: string;
  pool_guid: string;
  name: string;
  guid: string | null;
  type: string;
  state: string;
  parent: string;
  leaf: boolean;
}

export interface NodeDisksTable {
  node_id: string;
  name: string;
}

export interface TunablesTable {
  node_id: string;
  name: string;
  type: string;
  value: string;
  writable: boolean;
  description: string;
  updated_at: Timestamp;
}

export interface TunableSettingsTable {
  node_id: string;
  name: string;
  value: string;
  type: string;
  previous_value: string;
  task_id: number | null;
  requested_by: string;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface TelemetryCursorsTable {
  stream: 'pool' | 'arc';
  last_id: number;
}

export interface PoolTelemetryTable {
  id: number;
  node_id: string;
  pool_guid: string;
  pool_name: string;
  time: Timestamp;
  interval_seconds: number;
  sample_count: number;
  size: number;
  allocated: number;
  free: number;
  fragmentation: number;
  dedup_ratio: number;
  health: string;
  worst_health: string;
  read_iops: number;
  write_iops: number;
  read_bytes_per_second: number;
  write_bytes_per_second: number;
  read_latency_nanos: number;
  write_latency_nanos: number;
  max_read_iops: number;
  max_write_iops: number;
  max_read_bytes_per_second: number;
  max_write_bytes_per_second: number;
  max_read_latency_nanos: number;
  max_write_latency_nanos: number;
  node_seq: Generated<number>;
  pool_seq: Generated<number>;
}

export interface ArcTelemetryTable {
  id: number;
  node_id: string;
  time: Timestamp;
  interval_ms: number;
  sample_count: number;
  size: number;
  target_size: number;
  min_size: number;
  max_size: number;
  data_size: number;
  metadata_size: number;
  header_size: number;
  other_size: number;
  compressed_size: number;
  uncompressed_size: number;
  l2_size: number;
  l2_allocated: number;
  l2_device_count: number;
  hits: number;
  misses: number;
  demand_hits: number;
  demand_misses: number;
  prefetch_hits: number;
  prefetch_misses: number;
  l2_hits: number;
  l2_misses: number;
  evictions: number;
  l2_read_bytes: number;
  l2_write_bytes: number;
  evict_not_enough: number;
  memory_throttle: number;
  node_seq: Generated<number>;
}

type Rollup<T> = Omit<T, 'id'> & { id: Generated<number>; resolution_seconds: number };

export interface TelemetryNodesTable {
  node_id: string;
  last_sample_at: NullableTimestamp;
  arc_counters: Json<Record<string, number>> | null;
  arc_counters_at: NullableTimestamp;
  rollup_from: NullableTimestamp;
  maintained_at: NullableTimestamp;
  pool_rows: Generated<number>;
  arc_rows: Generated<number>;
  pool_rows_by_guid: ColumnType<Record<string, number>, string | undefined, string>;
}

// ── tasks (migration 0010) ──

// the values of `tasks.status` are part of the agent wire (a task's view carries them)
export { TASK_STATUSES, type TaskStatus } from '#shared/agent-api/task-status';

export interface TasksTable {
  id: Generated<number>;
  kind: string;
  node_id: string;
  resource: string;
  status: ColumnType<TaskStatus, TaskStatus | undefined>;
  phase: ColumnType<string, string | undefined, string>;
  progress: ColumnType<number, number | undefined, number>;
  output: ColumnType<string, string | undefined, string>;
  error: ColumnType<string, string | undefined, string>;
  result: Json<unknown> | null;
  payload: Json<unknown>;
  requested_by: string;
  requester_token_id: number | null;
  idempotency_key: string | null;
  request_ref: ColumnType<string, string | undefined, string>;
  exclusive: ColumnType<boolean, boolean | undefined, boolean>;
  attempts: ColumnType<number, number | undefined, number>;
  dispatch_count: ColumnType<number, number | undefined, number>;
  dispatched_at: NullableTimestamp;
  /** sends tried, failed ones included, and the last failure (migration 0016) */
  send_attempts: ColumnType<number, number | undefined, number>;
  send_error: ColumnType<string, string | undefined, string>;
  /** a running task's agent is to stop it, and who asked (migration 0080) */
  cancel_requested_at: NullableTimestamp;
  cancel_requested_by: ColumnType<string, string | undefined, string>;
  /** what the request changed in the store, as it was before; put back when the task is cancelled before it starts (migration 0113) */
  undo: ColumnType<unknown, string | null | undefined, string | null>;
  created_at: CreatedAt;
  started_at: NullableTimestamp;
  finished_at: NullableTimestamp;
  updated_at: Timestamp;
}

// ── VM MAC objects (migration 0040) ──

export interface VmMacObjectsTable {
  id: Generated<number>;
  name: string;
  /** lower case, colon separated */
  mac: string;
  created_at: CreatedAt;
}

export interface VmMacBindingsTable {
  guest_id: number;
  mac_object_id: number;
}

// ── PCI passthrough devices (migration 0055) ──

export interface PptDevicesTable {
  id: Generated<number>;
  node_id: string;
  /** always 0: only domain-zero devices are managed */
  domain: number;
  bus: number;
  slot: number;
  function: number;
  /** `bus/slot/function`, decimal, as loader.conf's pptdevs lists it */
  device_id: string;
  old_driver: string;
  task_id: number | null;
  requested_by: string;
  created_at: CreatedAt;
}

// ── host users and groups (migration 0050) ──

export interface HostGroupsTable {
  id: Generated<number>;
  node_id: string;
  name: string;
  gid: number;
  members: Json<string[]>;
  deleted_at: NullableTimestamp;
  updated_at: Timestamp;
}

export interface HostUsersTable {
  node_id: string;
  name: string;
  uid: number;
  gid: number;
}

// ── firewall NAT rules, network objects, WireGuard clients (migration 0065) ──

export interface NetworkObjectsTable {
  id: Generated<number>;
  name: string;
  description: ColumnType<string, string | undefined, string>;
  /** addresses, CIDRs or host names */
  entries: ColumnType<string[], string[] | undefined, string[]>;
  /** the addresses the host names among `entries` last resolved to */
  resolutions: ColumnType<string[], string[] | undefined, string[]>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface FirewallNatRulesTable {
  id: Generated<number>;
  node_id: string;
  name: string;
  description: ColumnType<string, string | undefined, string>;
  enabled: ColumnType<boolean, boolean | undefined, boolean>;
  type: 'snat' | 'dnat' | 'binat';
  family: 'inet' | 'inet6' | 'any';
  /** an address or CIDR; '' when the rule matches a network object (or any source) */
  source: ColumnType<string, string | undefined, string>;
  source_object_id: number | null;
  egress_interfaces: ColumnType<string[], string[] | undefined, string[]>;
  policy_routing: ColumnType<boolean, boolean | undefined, boolean>;
  translate_to: ColumnType<string, string | undefined, string>;
  created_at: CreatedAt;
  updated_at: Timestamp;
}

export interface WireguardClientsTable {
  id: Generated<number>;
  node_id: string;
  name: string;
  interface: string;
  fib: ColumnType<number, number | undefined, number>;
}

/** Which FIBs' routing tables a node reported; `hash` of each table as reported (migration 0066). */
export interface NodeRouteTablesTable {
  node_id: string;
  fib: number;
  hash: string;
}

/** A node's usable routes (not reject/blackhole), once per FIB and normalised prefix `network/len`. */
export interface NodeRoutesTable {
  node_id: string;
  fib: number;
  prefix: string;
  family: 'inet' | 'inet6';
  destination: string;
  gateway: string;
  flags: string;
  interface: string;
}

/** Every table of the store. Later migrations add their tables here too. */
// ── iSCSI (migration 0060) ──

export interface IscsiPortalGroupsTable {
  id: Generated<number>;
  node_id: string;
  name: string;
  discovery_auth_group: ColumnType<string, string | undefined, string>;
  /** `listen` addresses as ctl.conf takes them: `0.0.0.0`, `0.0.0.0:3260`, `[::]:3261` */
  listen: Json<string[]>;
}

export interface IscsiTargetsTable {
  id: Generated<number>;
  node_id: string;
  /** the IQN */
  name: string;
  alias: ColumnType<string, string | undefined, string>;
  auth_group: ColumnType<string, string | undefined, string>;
  portal_group_id: number;
}

export interface IscsiLunsTable {
  id: Generated<number>;
  target_id: number;
  node_id: string;
  lun_number: number;
  /** relative ZFS path of the zvol; ctl.conf gets `/dev/zvol/<zvol>` */
  zvol: string;
  /** the task that installs the configuration with this LUN (null when seeded) */
  task_id: number | null;
  created_at: CreatedAt;
}

// ── audit log (migration 0070) ──

export interface AuditLogTable {
  id: Generated<number>;
  at: CreatedAt;
  token_id: number | null;
  token_name: ColumnType<string, string | undefined, string>;
  role: ColumnType<string, string | undefined, string>;
  source_ip: ColumnType<string, string | undefined, string>;
  method: string;
  /** the route template, e.g. `POST /api/jail/{ctid}/migrate` has route `/api/jail/{ctid}/migrate` */
  route: string;
  resource: ColumnType<string, string | undefined, string>;
  /** the HTTP status answered; null while the request that committed the change has not answered yet */
  status: number | null;
  task_id: number | null;
  request_id: ColumnType<string, string | undefined, string>;
}

// ── cluster key (migration 0090) ──

/** The one row holding the cluster key's SHA-256 (lowercase hex); the key itself is never stored. */
export interface ClusterSettingsTable {
  id: ColumnType<boolean, boolean | undefined, never>;
  key_hash: string;
  key_rotated_at: Timestamp;
}

export interface Database {
  api_tokens: ApiTokensTable;
  auth_failures: AuthFailuresTable;
  nodes: NodesTable;
  cluster_notes: ClusterNotesTable;
  notifications: NotificationsTable;
  notification_templates: NotificationTemplatesTable;
  notification_targets: NotificationTargetsTable;
  notification_rules: NotificationRulesTable;
  backup_jobs: BackupJobsTable;
  backup_events: BackupEventsTable;
  backup_event_search_docs: BackupEventSearchDocsTable;
  backup_event_counts: BackupEventCountsTable;
  guests: GuestsTable;
  vm_mac_objects: VmMacObjectsTable;
  vm_mac_bindings: VmMacBindingsTable;
  tasks: TasksTable;
  pools: PoolsTable;
  pool_devices: PoolDevicesTable;
  node_disks: NodeDisksTable;
  tunables: TunablesTable;
  tunable_settings: TunableSettingsTable;
  telemetry_cursors: TelemetryCursorsTable;
  pool_telemetry: PoolTelemetryTable;
  arc_telemetry: ArcTelemetryTable;
  pool_telemetry_rollups: Rollup<PoolTelemetryTable>;
  arc_telemetry_rollups: Rollup<ArcTelemetryTable>;
  telemetry_nodes: TelemetryNodesTable;
  ppt_devices: PptDevicesTable;
  // host users and groups (migration 0050)
  host_groups: HostGroupsTable;
  host_users: HostUsersTable;
  // firewall NAT (migration 0065)
  network_objects: NetworkObjectsTable;
  firewall_nat_rules: FirewallNatRulesTable;
  wireguard_clients: WireguardClientsTable;
  // iSCSI (migration 0060)
  iscsi_portal_groups: IscsiPortalGroupsTable;
  iscsi_targets: IscsiTargetsTable;
  iscsi_luns: IscsiLunsTable;
  // reported routing tables (migration 0066)
  node_route_tables: NodeRouteTablesTable;
  node_routes: NodeRoutesTable;
  // audit log (migration 0070)
  audit_log: AuditLogTable;
  // TLS certificates (migration 0105)
  certificates: CertificatesTable;
  // cluster key for E16 (migration 0090)
  cluster_settings: ClusterSettingsTable;
  // notification delivery (migration 0110)
  notification_channels: NotificationChannelsTable;
  notification_events: NotificationEventsTable;
  notification_deliveries: NotificationDeliveriesTable;
}

/** A node's TLS certificate and the state of its issuance (migration 0105). */
export interface CertificatesTable {
  id: Generated<number>;
  node_id: string;
  name: string;
  domain: string;
  type: 'managed' | 'imported' | 'self-signed';
  staging: ColumnType<boolean, boolean | undefined, boolean>;
  active: ColumnType<boolean, boolean | undefined, boolean>;
  dynamic_dns_entry_id: number | null;
  issuance_status: 'queued' | 'submitting' | 'processing' | 'ready' | 'failed';
  issuance_operation: ColumnType<'initial' | 'renewal', 'initial' | 'renewal' | undefined, 'initial' | 'renewal'>;
  issuance_error: ColumnType<string, string | undefined, string>;
  issuance_retry_at: NullableTimestamp;
  issuance_failures: ColumnType<number, number | undefined, number>;
  fingerprint: ColumnType<string, string | undefined, string>;
  not_before: NullableTimestamp;
  not_after: NullableTimestamp;
  created_at: CreatedAt;
  updated_at: Timestamp;
}
export type CertificateRow = Selectable<CertificatesTable>;

/** What every query runs on: the connection pool or a transaction of it. */
export type Db = Kysely<Database> | Transaction<Database>;

export type NodeRow = Selectable<NodesTable>;
export type TaskRow = Selectable<TasksTable>;
export type BackupEventRow = Selectable<BackupEventsTable>;
export type NotificationRuleRow = Selectable<NotificationRulesTable>;
