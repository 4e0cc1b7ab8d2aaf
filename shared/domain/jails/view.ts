import { cpuLimitRecord } from './set-cpu.ts';
import type { JailRow } from './store.ts';

/** A jail as the API shows it (beyond the spec: GET /api/jail/{ctid}). */
export function jailView(row: JailRow) {
  const c = row.config;
  return {
    ctId: row.id,
    name: row.name,
    nodeId: row.node_id,
    state: row.state,
    dataset: c.dataset,
    path: c.path,
    hostname: c.hostname,
    hooks: c.hooks,
    cpu: cpuLimitRecord(row.id, c),
    host: c.host,
    updatedAt: new Date(row.updated_at).toISOString(),
  };
}
