import { sql, type Transaction } from 'kysely';
import { unavailable, ValidationError } from '#shared/errors/domain-errors';
import type { Database } from '#store/tables';
import type { Enqueue } from '#shared/jobs/tasks';
import { resourceKey } from '#shared/agent-api/task-kinds';
import { onlineSql } from '#store/presence';
import { requireCapability } from '#domain/nodes/capabilities';
import { leastUsedCpus } from '#shared/agent-api/jail-cpu';
import { MAX_HOST_CPUS, reportedCpus } from '#domain/inventory';
import { jailConfigOf, requireJail, requireNoExclusiveTask, saveJailConfig } from './store.ts';
import type { JailConfig, JailCpuLimit } from './types.ts';
import type { JailUndo } from './outcomes.ts';

export const cpuLimitRecord = (ctid: number, c: Pick<JailConfig, 'cores' | 'cpuSet' | 'memoryBytes'>): JailCpuLimit => ({
  cores: c.cores ?? 0,
  cpuSet: c.cpuSet,
  ctId: ctid,
  memory: c.memoryBytes,
  resourceLimits: (c.cores ?? 0) > 0 || c.memoryBytes > 0,
});

/**
 * E4: `cores` within 1..the host's CPUs (as its agent last reported them). The jail is pinned to the host's
 * least-used CPUs (counting the other jails of the node pinned to each). Persisted, and planned as a task that
 * writes the post-start limits on the host; a running jail is also pinned at once (`applyNow`), which needs
 * its agent: node offline and jail running → 503 `node_offline` and nothing changes. A stopped jail's limit
 * is only persisted (its host conf follows when the agent next takes work), so an offline node is fine.
 * The task carries the jail's memory limit too (one limits script): a jail with one on a node that reported
 * RACCT off → 409 `capability_missing` (the agent would fail the task: rctl cannot work there).
 */
export async function setCpuLimit(trx: Transaction<Database>, enqueue: Enqueue, ctid: number, cores: number): Promise<JailCpuLimit> {
  const jail = await requireJail(trx, ctid);
  const node = await trx
    .selectFrom('nodes')
    .select(['id', sql<unknown>`inventory->'cpus'`.as('cpus'), onlineSql('nodes').as('online')])
    .where('id', '=', jail.node_id)
    .executeTakeFirstOrThrow();
  const hostCpus = reportedCpus(node.cpus) ?? 0;
  if (hostCpus < 1)
    throw unavailable(
      'node_inventory_unavailable',
      `node ${node.id} has not reported a usable CPU count (1–${MAX_HOST_CPUS}); retry when its agent has reported its inventory`,
    );
  if (cores > hostCpus) throw new ValidationError([{ field: 'body.cores', problem: `must be <= ${hostCpus} (the CPUs of node ${node.id})` }]);
  await requireNoExclusiveTask(trx, ctid);
  if (jail.config.memoryBytes > 0) await requireCapability(trx, node.id, 'racct');
  const running = jail.state === 'running';
  if (running && !node.online) throw unavailable('node_offline', `node ${node.id} is offline: the CPU limit of running jail ${ctid} cannot be applied now`);
  const others = await trx
    .selectFrom('guests')
    .select('config')
    .where('node_id', '=', jail.node_id)
    .where('type', '=', 'jail')
    .where('id', '!=', ctid)
    .execute();
  const cpuSet = leastUsedCpus(
    hostCpus,
    cores,
    others.map((o) => jailConfigOf(o.config).cpuSet),
  );
  const next: JailConfig = { ...jail.config, cores, cpuSet };
  await saveJailConfig(trx, ctid, next);
  await enqueue({
    kind: 'jail.apply-limits',
    nodeId: jail.node_id,
    resource: resourceKey.jail(ctid),
    payload: { ctid, name: jail.name, cpuSet, memoryBytes: next.memoryBytes, applyNow: running },
    undo: { cores: jail.config.cores, cpuSet: jail.config.cpuSet } satisfies JailUndo,
  });
  return cpuLimitRecord(ctid, next);
}
