import { runChecked, type Executor } from '../../executors/executor.ts';
import type { SnapshotInventory } from '#shared/agent-api/inventory';

/**
 * Every snapshot of the host: `zfs list -H -p -t snapshot -o name,creation,used,userrefs,clones` (per dataset in
 * creation order, as zfs lists them), then the hold tags of those with user references (`zfs holds -H`, one line
 * `name<TAB>tag<TAB>time` per hold).
 */
export async function listSnapshotInventory(exec: Executor): Promise<SnapshotInventory[]> {
  const out = await runChecked(exec, ['zfs', 'list', '-H', '-p', '-t', 'snapshot', '-o', 'name,creation,used,userrefs,clones']);
  const rows = out
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [name, creation, used, userrefs, clones] = line.split('\t');
      return {
        snap: {
          name,
          createdAt: Number(creation) || 0,
          usedBytes: Number(used) || 0,
          holds: [] as string[],
          clones: clones && clones !== '-' ? clones.split(',').filter(Boolean) : [],
        },
        held: Number(userrefs) > 0,
      };
    });
  const held = rows.filter((r) => r.held).map((r) => r.snap.name);
  if (held.length) {
    const byName = new Map(rows.map((r) => [r.snap.name, r.snap]));
    for (const line of (await runChecked(exec, ['zfs', 'holds', '-H', ...held])).split('\n')) {
      const [name, tag] = line.split('\t');
      if (name && tag) byName.get(name)?.holds.push(tag);
    }
  }
  return rows.map((r) => r.snap);
}
