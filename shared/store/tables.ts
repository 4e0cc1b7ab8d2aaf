import type { ColumnType, Generated, Selectable } from 'kysely';

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

/** Every table of the store. Later migrations add their tables here too. */
export interface Database {
  api_tokens: ApiTokensTable;
  nodes: NodesTable;
  cluster_notes: ClusterNotesTable;
  notifications: NotificationsTable;
  notification_templates: NotificationTemplatesTable;
  notification_targets: NotificationTargetsTable;
  notification_rules: NotificationRulesTable;
  backup_jobs: BackupJobsTable;
  backup_events: BackupEventsTable;
  guests: GuestsTable;
}

export type NodeRow = Selectable<NodesTable>;
export type BackupEventRow = Selectable<BackupEventsTable>;
export type NotificationRuleRow = Selectable<NotificationRulesTable>;
