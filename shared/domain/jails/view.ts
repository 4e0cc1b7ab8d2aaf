import { cpuLimitRecord } from './set-cpu.ts';
import type { JailRow } from './store.ts';
import type { JailMove } from './moving.ts';

/** A jail as the API shows it (beyond the spec: GET /api/jail/{ctid}), with its migration in flight if any. */
export function jailView(row: JailRow, moving: JailMove | null) {
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
    moving,
  };
}
