import type { ReapplyItem, ReapplySource } from '../reapply-item.ts';
import { resourceKey } from '#shared/agent-api/task-kinds';
import { jailConfigOf } from './store.ts';

/**
 * At agent start, each jail of the node gets its persisted hooks (E3) and limits (E4) written again; a running
 * jail is pinned again too (its CPUs may have been reset by a host reboot or by hand).
 */
export const jailReapplySource: ReapplySource = async (db, nodeId) => {
  const rows = await db
    .selectFrom('guests')
    .select(['id', 'name', 'state', 'config'])
    .where('node_id', '=', nodeId)
    .where('type', '=', 'jail')
    .orderBy('id')
    .execute();
  const items: ReapplyItem[] = [];
  for (const r of rows) {
    const c = jailConfigOf(r.config);
    const resource = resourceKey.jail(r.id);
    items.push({ kind: 'jail.apply-hooks', resource, payload: { ctid: r.id, name: r.name, hooks: c.hooks } });
    items.push({
      kind: 'jail.apply-limits',
      resource,
      payload: { ctid: r.id, name: r.name, cpuSet: c.cpuSet ?? [], memoryBytes: c.memoryBytes ?? 0, applyNow: r.state === 'running' },
    });
  }
  return items;
};
