/**
 * Arrangements for the group tests (not a test file): a node whose reported inventory has users and groups,
 * projected through the same code the agent endpoints use.
 */
import { testDb } from '../helpers/api.ts';
import { createHost, sampleInventory } from './zfs-fixtures.ts';
import type { HostGroupInventory, HostUserInventory } from '#domain/groups/types';

export const sampleUsers: HostUserInventory[] = [
  { name: 'root', uid: 0, gid: 0 },
  { name: 'hostmgr', uid: 950, gid: 950 },
  { name: 'alice', uid: 1001, gid: 1001 },
  { name: 'bob', uid: 1002, gid: 1002 },
  // carol's primary group is developers
  { name: 'carol', uid: 1003, gid: 2000 },
];

export const sampleGroups = (): HostGroupInventory[] => [
  { name: 'wheel', gid: 0, members: ['root'] },
  { name: 'staff', gid: 20, members: [] },
  { name: 'video', gid: 44, members: ['alice', 'bob'] },
  { name: 'audio', gid: 45, members: [] },
  { name: 'hostmgr', gid: 950, members: [] },
  { name: 'alice', gid: 1001, members: [] },
  { name: 'developers', gid: 2000, members: ['alice', 'carol'] },
];

/** A member node with the sample users and groups; `ids` maps each group name to its store id. */
export async function createGroupHost() {
  const { nodeId } = await createHost({ inventory: sampleInventory({ users: sampleUsers, groups: sampleGroups() }) });
  const rows = await testDb().selectFrom('host_groups').select(['id', 'name']).where('node_id', '=', nodeId).execute();
  const ids = Object.fromEntries(rows.map((r) => [r.name, r.id])) as Record<string, number>;
  return { nodeId, ids };
}

export const groupRow = (id: number) => testDb().selectFrom('host_groups').selectAll().where('id', '=', id).executeTakeFirst();
export const groupTasks = (id: number) => testDb().selectFrom('tasks').selectAll().where('resource', '=', `group:${id}`).orderBy('id').execute();
