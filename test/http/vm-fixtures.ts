/** Arranging VMs in the store for the VM endpoint tests (rows as the inventory projection writes them). */
import { sql } from 'kysely';
import { testDb } from '../helpers/api.ts';
import { insertNode } from '../helpers/agent.ts';
import { defaultVmOptions } from '#shared/agent-api/vm-defaults';
import type { VmConfig, VmOptions, VmState } from '#shared/domain/vms/types';
import { syncMacBindings } from '#domain/vms/mac-objects';

/**
 * Guest ids are cluster-wide and shared with other test files: pick ones nobody holds, and none with a past either —
 * an earlier file's guest that an agent's inventory removed leaves its tasks (`vm:<id>`), which tasksOf would return.
 */
export async function freeRids(count: number): Promise<number[]> {
  const guests = await testDb().selectFrom('guests').select('id').execute();
  const tasks = await testDb().selectFrom('tasks').select('resource').distinct().where('resource', 'like', '%:%').execute();
  const taken = new Set([...guests.map((r) => r.id), ...tasks.map((t) => Number(t.resource.split(':')[1])).filter(Number.isInteger)]);
  const out: number[] = [];
  while (out.length < count) {
    const id = 2000 + Math.floor(Math.random() * 7999);
    if (!taken.has(id) && !out.includes(id)) out.push(id);
  }
  return out;
}

const nodes: string[] = [];
const track = async (id: Promise<string>) => {
  nodes.push(await id);
  return nodes[nodes.length - 1];
};
export const onlineNode = () => track(insertNode(undefined, { status: 'member' }));
export const offlineNode = () => track(insertNode(undefined, { status: 'member', lastSeenAt: new Date(Date.now() - 3600_000) }));

/**
 * These nodes have no agent: their tasks would stay queued (and be re-sent by the sweeper) for the rest of
 * the run. End them quietly when the file is done.
 */
afterAll(async () => {
  if (!nodes.length) return;
  await testDb()
    .updateTable('tasks')
    .set({ status: 'failed', error: 'ended by test (node without agent)', finished_at: sql<Date>`now()` })
    .where('node_id', 'in', nodes.splice(0))
    .where('status', 'in', ['queued', 'running'])
    .execute();
});

export interface VmSpec {
  nodeId: string;
  rid?: number;
  state?: VmState;
  options?: Partial<VmOptions>;
  macs?: string[];
  datasets?: string[];
}

export async function insertVm(s: VmSpec): Promise<number> {
  const rid = s.rid ?? (await freeRids(1))[0];
  const config: VmConfig = { domain: String(rid), options: { ...defaultVmOptions(), ...s.options }, macs: s.macs ?? [], datasets: s.datasets ?? [] };
  await testDb()
    .insertInto('guests')
    .values({ id: rid, type: 'vm', node_id: s.nodeId, name: `vm-${rid}`, state: s.state ?? 'shut off', config: JSON.stringify(config) })
    .execute();
  if (s.macs?.length) await syncMacBindings(testDb(), rid, `vm-${rid}`, s.macs);
  return rid;
}

export const vmRow = (rid: number) => testDb().selectFrom('guests').selectAll().where('id', '=', rid).executeTakeFirst();
export const vmOptions = async (rid: number) => ((await vmRow(rid))!.config as unknown as VmConfig).options;
export const tasksOf = (rid: number) => testDb().selectFrom('tasks').selectAll().where('resource', '=', `vm:${rid}`).orderBy('id').execute();

/** A random locally administered MAC (unique per test run). */
export const randomMac = () =>
  [
    '02',
    ...Array.from({ length: 5 }, () =>
      Math.floor(Math.random() * 256)
        .toString(16)
        .padStart(2, '0'),
    ),
  ].join(':');

/** Marks a node's agent as just heard from / long silent. */
export const setNodeSeen = (nodeId: string, online: boolean) =>
  testDb()
    .updateTable('nodes')
    .set({ last_seen_at: online ? sql<Date>`now()` : new Date(Date.now() - 3600_000) })
    .where('id', '=', nodeId)
    .execute();
