import type { Db } from '#store/tables';
import type { SnapshotInventory } from '#shared/agent-api/inventory';
import { isJobSnapshot } from '#shared/agent-api/backup-snapshot-names';
import { notFound, unavailable } from '#shared/errors/domain-errors';
import { onlineSql } from '#store/presence';

export type GuestType = 'jail' | 'vm';

/** A snapshot of one of the guest's datasets, as its host last reported it. */
export interface GuestSnapshot {
  /** dataset@name */
  snapshot: string;
  dataset: string;
  name: string;
  createdAt: string;
  usedBytes: number;
  holds: string[];
  clones: string[];
  /** a backup job's own snapshot (`hm-backup-<job>-…`): never destroyed here */
  backupJob: number | null;
}

export interface GuestStorage {
  type: GuestType;
  id: number;
  name: string;
  nodeId: string;
  online: boolean;
  datasets: string[];
  /** per dataset, oldest first */
  snapshots: GuestSnapshot[];
}

/**
 * The guest's datasets (a jail's dataset, a VM's datasets and zvols, as its node's agent reports them) and their
 * snapshots from the same inventory; 404 for an unknown guest.
 */
export async function guestStorage(db: Db, type: GuestType, id: number): Promise<GuestStorage> {
  const guest = await db
    .selectFrom('guests')
    .innerJoin('nodes', 'nodes.id', 'guests.node_id')
    .select(['guests.name', 'guests.node_id', 'nodes.inventory', onlineSql('nodes').as('online')])
    .where('guests.id', '=', id)
    .where('guests.type', '=', type)
    .executeTakeFirst();
  if (!guest) throw notFound(`${type}_not_found`, `no ${type === 'jail' ? 'jail with ctid' : 'VM with rid'} ${id}`);
  const inv = guest.inventory as {
    jails?: { ctid: number; dataset?: string }[];
    vms?: { rid: number; datasets?: string[] }[];
    snapshots?: SnapshotInventory[];
  };
  const datasets =
    type === 'jail'
      ? [inv.jails?.find((j) => j.ctid === id)?.dataset].filter((d): d is string => Boolean(d))
      : (inv.vms?.find((v) => v.rid === id)?.datasets ?? []);
  const jobs = await db.selectFrom('backup_jobs').select('id').execute();
  const snapshots = (inv.snapshots ?? [])
    .filter((s) => datasets.includes(s.name.split('@')[0]))
    .map((s): GuestSnapshot => {
      const [dataset, name] = s.name.split('@');
      return {
        snapshot: s.name,
        dataset,
        name,
        createdAt: new Date(s.createdAt * 1000).toISOString(),
        usedBytes: s.usedBytes,
        holds: s.holds,
        clones: s.clones,
        backupJob: jobs.find((j) => isJobSnapshot(j.id, name))?.id ?? null,
      };
    });
  return { type, id, name: guest.name, nodeId: guest.node_id, online: Boolean(guest.online), datasets, snapshots };
}

/** The guest's node must be online for its agent to do the work. */
export function requireOnline(g: GuestStorage): void {
  if (!g.online) throw unavailable('node_offline', `cluster node ${g.nodeId}, which holds ${g.type} ${g.id}, is offline`);
}
