import type { Selectable } from 'kysely';
import { notFound } from '#shared/errors/domain-errors';
import type { Db, HostGroupsTable } from '#store/tables';
import type { GroupView } from './types.ts';

type GroupRow = Selectable<HostGroupsTable>;

/** A managed group that is not being deleted, locked for the request's transaction; 404 group_not_found otherwise. */
export async function requireGroup(trx: Db, id: number): Promise<GroupRow> {
  const row = await trx.selectFrom('host_groups').selectAll().where('id', '=', id).where('deleted_at', 'is', null).forUpdate().executeTakeFirst();
  if (!row) throw notFound('group_not_found', `group ${id} does not exist`);
  return row;
}

/** The node's users whose primary group has this gid, by name. */
export async function primaryMembers(trx: Db, nodeId: string, gid: number): Promise<string[]> {
  const rows = await trx.selectFrom('host_users').select('name').where('node_id', '=', nodeId).where('gid', '=', gid).orderBy('name').execute();
  return rows.map((r) => r.name);
}

export const toGroupView = (g: GroupRow): GroupView => ({ id: g.id, name: g.name });
