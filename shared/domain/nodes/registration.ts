import { isIPv4, isIPv6 } from 'node:net';
import { ValidationError } from '#shared/errors/domain-errors';
import { sql } from 'kysely';
import type { HostInventory } from '#domain/inventory';
import type { NodeRow, Db } from '#store/tables';
import { inventoryHash } from '#shared/agent-api/inventory-hash';
import { inventoryProjections } from './inventory-projections.ts';
import { touchNode } from './touch.ts';
import { settlingResources } from './settling.ts';

export interface Registration {
  /** the host's UUID */
  id: string;
  name: string;
  ip: string;
  inventory: HostInventory;
  agentVersion?: string;
  heartbeatIntervalS?: number;
  /** `SHA256:…` fingerprints of the host's SSH host keys; absent (an older agent) keeps what is stored */
  sshHostKeys?: string[];
}

async function project(trx: Db, nodeId: string, inventory: HostInventory, asOf?: string) {
  const settling = await settlingResources(trx, nodeId, asOf);
  for (const p of inventoryProjections) await p(trx, nodeId, inventory, settling);
}

/**
 * A node's address is an IP address — IPv4 in dotted decimal or IPv6 without a zone (node:net, which the store's
 * connection loads anyway) — never a name or any other text: peers connect to it over SSH (E20, E15) and E16
 * compares it. 400 naming `body.ip` otherwise.
 */
export function checkNodeAddress(ip: string): void {
  if (!isIPv4(ip) && !(isIPv6(ip) && !ip.includes('%'))) {
    throw new ValidationError([{ field: 'body.ip', problem: 'must be an IP address (IPv4 dotted decimal or IPv6)' }]);
  }
}

/**
 * An agent registers at every start: a new host becomes a `pending` node (E16 admits it as a
 * member); a known one keeps its status and gets its name, address and inventory refreshed.
 */
export async function registerNode(trx: Db, r: Registration): Promise<{ node: NodeRow; created: boolean }> {
  checkNodeAddress(r.ip);
  const hash = inventoryHash(r.inventory);
  const fields = {
    name: r.name,
    ip: r.ip,
    inventory: JSON.stringify(r.inventory),
    inventory_hash: hash,
    inventory_at: sql<Date>`now()`,
    heartbeat_interval_s: r.heartbeatIntervalS ?? 10,
    agent_version: r.agentVersion ?? '',
    ...(r.sshHostKeys ? { ssh_host_keys: JSON.stringify([...new Set(r.sshHostKeys)]) } : {}),
    agent_started_at: sql<Date>`now()`,
    last_seen_at: sql<Date>`now()`,
    updated_at: sql<Date>`now()`,
  };
  const row = await trx
    .insertInto('nodes')
    .values({ id: r.id, status: 'pending', registered_at: sql<Date>`now()`, ...fields })
    .onConflict((oc) => oc.column('id').doUpdateSet({ ...fields, registered_at: sql<Date>`coalesce(nodes.registered_at, now())` }))
    .returningAll()
    .returning(sql<boolean>`xmax = 0`.as('inserted'))
    .executeTakeFirstOrThrow();
  await project(trx, r.id, r.inventory);
  const { inserted, ...node } = row;
  return { node, created: Boolean(inserted) };
}

/**
 * A changed inventory: stored and projected. An unchanged one (same hash) only counts as a sign of life.
 * `asOf`: the agent collected it after every task outcome the store had recorded up to then (./settling.ts).
 */
export async function reportInventory(trx: Db, nodeId: string, inventory: HostInventory, asOf?: string): Promise<{ node: NodeRow; changed: boolean }> {
  const current = await touchNode(trx, nodeId);
  const hash = inventoryHash(inventory);
  if (current.inventory_hash === hash) return { node: current, changed: false };
  const node = await trx
    .updateTable('nodes')
    .set({ inventory: JSON.stringify(inventory), inventory_hash: hash, inventory_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
    .where('id', '=', nodeId)
    .returningAll()
    .executeTakeFirstOrThrow();
  await project(trx, nodeId, inventory, asOf);
  return { node, changed: true };
}
