/**
 * The API answers the console reads, typed by hand in this one module until the OpenAPI document carries every
 * endpoint's `data` schema; then a generated module from that document replaces it.
 */
export type Role = 'viewer' | 'operator' | 'admin' | 'agent';
export interface Page<T> {
  data: T[];
  last_page: number;
  total?: number;
}
export interface Task {
  id: number;
  kind: string;
  nodeId: string | null;
  resource: string | null;
  status: 'queued' | 'running' | 'success' | 'failed' | 'cancelled' | 'interrupted';
  phase: string | null;
  progress: number | null;
  output: string | null;
  error: string | null;
  requestedBy: string | null;
  createdAt: string;
  finishedAt: string | null;
}
export interface NodeView {
  id: string;
  name: string;
  ip: string;
  status: string;
  online: boolean;
  lastSeenAt: string | null;
  agentVersion: string;
  capabilities: Record<string, unknown> | null;
  inventory?: { jails?: Jail[]; vms?: Vm[]; pools?: Array<{ guid: string; name: string; health: string }> };
}
export interface Jail {
  ctid: number;
  name: string;
  state: string;
  hostname: string;
  cpuSet: number[];
  dataset: string | null;
}
export interface Vm {
  rid: number;
  name: string;
  state: string;
  options: Record<string, unknown>;
}
export interface Notification {
  id: number;
  kind: string;
  title: string;
  body: string;
  severity: string;
  scope: string;
  createdAt: string;
}
export interface PoolPoint {
  time: number;
  readBytesPerSecond: number;
  writeBytesPerSecond: number;
  readIOPS: number;
  writeIOPS: number;
  readLatencyNanos: number;
  writeLatencyNanos: number;
  health: string;
}
export interface ArcRow {
  time: number;
  size: number;
  hitRatio: number;
}
export interface Telemetry {
  pools: Array<{ guid: string; name: string; points: PoolPoint[] }>;
  arc: ArcRow[];
  cursors: { pool: number; arc: number };
  resetRequired?: boolean;
}
export interface Certificate {
  id: number;
  name: string;
  domain: string;
  type: string;
  issuanceStatus: string;
  issuanceError: string;
  /** '' before a certificate is installed */
  notAfter: string;
  fingerprint: string;
}
export interface BackupJob {
  id: number;
  name: string;
  nodeId: string;
  mode: string;
  sourceDataset: string;
  targetEndpoint: string;
  schedule: string;
  enabled: boolean;
  nextRunAt: string | null;
}
export interface BackupEvent {
  id: number;
  jobId: number;
  mode: string;
  sourceDataset: string;
  targetEndpoint: string;
  status: string;
  error: string;
  startedAt: string | null;
  completedAt: string | null;
}
export interface AuditRow {
  id: number;
  at: string;
  tokenId: number | null;
  tokenName: string;
  role: string;
  sourceIp: string;
  method: string;
  route: string;
  resource: string;
  status: number | null;
  taskId: number | null;
}

/** The generated types of the endpoints whose `data` the OpenAPI document declares (scripts/build/console-api-types.ts). */
export type { ApiData } from '../.generated/console-api-types.ts';
