/**
 * Arranging jails in the store for the jail HTTP tests: nodes as registered agents leave them, and jails
 * projected from an inventory through the real projection (shared/domain/jails/projection.ts).
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { testDb } from '../helpers/api.ts';
import { applyJailInventory } from '#domain/jails/projection';
import { noHooks } from '#shared/agent-api/jail-hooks';
import type { JailInventory } from '#domain/jails/types';
import { inTransaction } from '#store/tx';

/** A guest id no row uses yet (ids are cluster-wide; other test files create guests too). */
export async function freeGuestId(): Promise<number> {
  for (let i = 0; i < 200; i++) {
    const id = 1000 + Math.floor(Math.random() * 8999);
    const row = await testDb().selectFrom('guests').select('id').where('id', '=', id).executeTakeFirst();
    if (!row) return id;
  }
  throw new Error('no free guest id');
}

export function jailInv(ctid: number, over: Partial<JailInventory> = {}): JailInventory {
  return {
    ctid,
    name: `j${ctid}`,
    state: 'stopped',
    jid: null,
    hostname: `j${ctid}.example.org`,
    path: `/zroot/jails/j${ctid}`,
    dataset: `zroot/jails/j${ctid}`,
    hooks: noHooks(),
    cpuSet: [],
    memoryBytes: 0,
    memoryUsedBytes: null,
    ...over,
  };
}

export interface NodeSpec {
  status?: 'member' | 'pending';
  online?: boolean;
  cpus?: number;
  jails?: JailInventory[];
  vms?: Array<{ rid: number }>;
  ip?: string;
  /** the SSH host keys its agent registered */
  sshHostKeys?: string[];
  /** the inventory's capabilities section, as an agent that probes them reports it */
  capabilities?: { osrelease: string; osreldate: number; racct: boolean; zfsVersion?: string | null; libvirtVersion?: string | null };
}

/** A node with an inventory (cpus, jails), its jails projected into guests like an agent report does. */
export async function arrangeNode(spec: NodeSpec = {}): Promise<string> {
  const id = randomUUID();
  const inventory = {
    hostname: `h-${id.slice(0, 8)}`,
    os: 'FreeBSD 14.1-RELEASE',
    cpus: spec.cpus ?? 4,
    memoryBytes: 8 * 2 ** 30,
    jails: spec.jails ?? [],
    vms: spec.vms ?? [],
    ...(spec.capabilities ? { capabilities: spec.capabilities } : {}),
  };
  await testDb()
    .insertInto('nodes')
    .values({
      id,
      name: `node-${id.slice(0, 8)}`,
      ip: spec.ip ?? '192.0.2.20',
      ...(spec.sshHostKeys ? { ssh_host_keys: JSON.stringify(spec.sshHostKeys) } : {}),
      status: spec.status ?? 'member',
      inventory: JSON.stringify(inventory),
      last_seen_at: spec.online === false ? sql<Date>`now() - interval '1 hour'` : sql<Date>`now()`,
      heartbeat_interval_s: 10,
    })
    .execute();
  await inTransaction(testDb(), (trx) => applyJailInventory(trx, id, inventory.jails));
  return id;
}

export const guestRow = (id: number) => testDb().selectFrom('guests').selectAll().where('id', '=', id).executeTakeFirst();
export const tasksOf = (ctid: number) => testDb().selectFrom('tasks').selectAll().where('resource', '=', `jail:${ctid}`).orderBy('id').execute();
export const setOnline = (nodeId: string, online: boolean) =>
  testDb()
    .updateTable('nodes')
    .set({ last_seen_at: online ? sql<Date>`now()` : sql<Date>`now() - interval '1 hour'` })
    .where('id', '=', nodeId)
    .execute();
