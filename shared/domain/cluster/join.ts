import { sql, type Transaction } from 'kysely';
import { conflict, ValidationError, type FieldError } from '#shared/errors/domain-errors';
import { ACTIVE_STATUSES } from '#shared/agent-api/task-status';
import { resourceKey } from '#shared/agent-api/task-kinds';
import type { Database, Db } from '#store/tables';
import { onlineSql } from '#store/presence';
import { isIpLiteral } from '#domain/vms/vnc-rules';
import { inventoryProjections } from '#domain/nodes/inventory-projections';
import { settlingResources } from '#domain/nodes/settling';
import type { HostInventory } from '#domain/inventory';
import { toNodeView, type NodeView } from '#domain/nodes/view';
import { advertisedIp, normalIp, ADVERTISED_IP_VAR } from './advertised.ts';
import { requireClusterKey } from './key.ts';
import { conflictReport, type JoinEntry } from './join-report.ts';
import { requireNode } from '#domain/nodes/require-node';

/** E16's request (all four required strings). */
interface JoinRequest {
  clusterKey: string;
  leaderIp: string;
  nodeId: string;
  nodeIp: string;
}

interface JoinResult {
  node: NodeView;
  /** false when the node already was a member (a no-op) */
  joined: boolean;
}

type GuestRef = { id: number; type: 'jail' | 'vm'; node_id: string; name: string };

/** The guests a node's host reports in its last inventory (jails by CTID, VMs by RID), as report entries. */
function reportedEntries(nodeId: string, inventory: unknown, rows: GuestRef[]): JoinEntry[] {
  const inv = (inventory ?? {}) as Partial<Pick<HostInventory, 'jails' | 'vms'>>;
  const recordOf = (id: number, type: 'jail' | 'vm') => (rows.some((r) => r.id === id && r.type === type && r.node_id === nodeId) ? id : 0);
  const listed = <T>(v: T[] | undefined): T[] => (Array.isArray(v) ? v : []);
  return [
    ...listed(inv.jails).map((j) => ({
      guestId: Number(j.ctid),
      guestType: 'jail' as const,
      name: String(j.name ?? ''),
      nodeId,
      recordId: recordOf(Number(j.ctid), 'jail'),
    })),
    ...listed(inv.vms).map((v) => ({
      guestId: Number(v.rid),
      guestType: 'vm' as const,
      name: String(v.name ?? ''),
      nodeId,
      recordId: recordOf(Number(v.rid), 'vm'),
    })),
  ].filter((e) => Number.isFinite(e.guestId));
}

/** A node's guests: what its host reports, plus the rows the store holds for it (one entry per guest). */
function guestEntries(nodeId: string, inventory: unknown, rows: GuestRef[]): JoinEntry[] {
  const out = new Map<string, JoinEntry>();
  for (const r of rows.filter((x) => x.node_id === nodeId))
    out.set(`${r.type}:${r.id}`, { guestId: r.id, guestType: r.type, name: r.name, nodeId, recordId: r.id });
  for (const e of reportedEntries(nodeId, inventory, rows)) if (!out.has(`${e.guestType}:${e.guestId}`)) out.set(`${e.guestType}:${e.guestId}`, e);
  return [...out.values()];
}

/** The joiner's guest ids that have a queued or running task (resource `jail:<id>` or `vm:<id>`). */
async function busyGuestIds(trx: Db, joiner: JoinEntry[]): Promise<Set<number>> {
  const keys = joiner.map((e) => resourceKey[e.guestType](e.guestId));
  if (!keys.length) return new Set();
  const rows = await trx.selectFrom('tasks').select('resource').where('resource', 'in', keys).where('status', 'in', ACTIVE_STATUSES).execute();
  return new Set(rows.map((r) => Number(r.resource.slice(r.resource.indexOf(':') + 1))));
}

function requireIpLiterals(req: JoinRequest): void {
  const errors: FieldError[] = [];
  for (const field of ['leaderIp', 'nodeIp'] as const) {
    if (!isIpLiteral(req[field])) errors.push({ field: `body.${field}`, problem: `must be an IPv4 or IPv6 address literal, got "${req[field]}"` });
  }
  if (errors.length) throw new ValidationError(errors);
}

/**
 * E16: admits a registered node as a cluster member, in the caller's transaction. In this order: both addresses
 * are IP literals (400); the cluster key matches (403); `leaderIp` is this control plane's advertised address
 * (409); the node is registered (404); `nodeIp` is the address it registered with (409). A member joining again
 * is a no-op. Otherwise the joiner's guests are checked against every member's (guest ids outside 1–9999, ids
 * another guest holds, guests with an active task): any conflict → 409 carrying the report, nothing changed.
 *
 * Cluster guests: the rows of `guests` whose node is a member. A pending node's reported guests may already
 * have rows (its agent's projection inserts those whose id is free, so the node's own endpoints work before it
 * joins), but they are provisional: joining makes them cluster guests — a member's guest wins an id a pending
 * node also holds, and a pending node's row of an id the joiner reports moves to the joiner.
 */
export async function joinCluster(trx: Transaction<Database>, req: JoinRequest): Promise<JoinResult> {
  requireIpLiterals(req);
  await requireClusterKey(trx, req.clusterKey);
  const leader = advertisedIp();
  if (leader === null)
    throw conflict('leader_ip_mismatch', `leaderIp ${req.leaderIp} is not this control plane's address: it advertises none (set ${ADVERTISED_IP_VAR})`);
  if (normalIp(req.leaderIp) !== leader)
    throw conflict('leader_ip_mismatch', `leaderIp ${req.leaderIp} is not this control plane's advertised address ${leader}`);

  const node = await requireNode(trx, req.nodeId, { hint: 'its agent registers it', forUpdate: true });
  if (!isIpLiteral(node.ip) || normalIp(node.ip) !== normalIp(req.nodeIp)) {
    throw conflict('node_ip_mismatch', `nodeIp ${req.nodeIp} is not the address node ${node.id} registered with (${node.ip || 'none'})`);
  }
  if (node.status === 'member') return { node: toNodeView(node), joined: false };

  const rows = (await trx.selectFrom('guests').select(['id', 'type', 'node_id', 'name']).execute()) as GuestRef[];
  const members = await trx.selectFrom('nodes').select(['id', 'inventory']).where('status', '=', 'member').where('id', '!=', node.id).execute();
  const joiner = reportedEntries(node.id, node.inventory, rows);
  // each member's entries take only that member's rows (guestEntries and reportedEntries match by node id)
  const theirs = members.flatMap((m) => guestEntries(m.id, m.inventory, rows));
  const report = conflictReport(joiner, theirs, await busyGuestIds(trx, joiner));
  if (report) {
    const ids = [...new Set(report.conflicts.map((c) => c.guestId))].join(', ');
    throw conflict(
      'cluster_join_conflict',
      `node ${node.id} cannot join: ${report.conflicts.length} guest conflict(s) on guest id(s) ${ids}; see data`,
      report,
    );
  }

  // its guests become cluster guests: provisional rows of other pending nodes give way, then its inventory is projected
  const ids = [...new Set(joiner.map((e) => e.guestId))];
  if (ids.length) await trx.deleteFrom('guests').where('id', 'in', ids).where('node_id', '!=', node.id).execute();
  const settling = await settlingResources(trx, node.id);
  for (const project of inventoryProjections) await project(trx, node.id, (node.inventory ?? {}) as Partial<HostInventory>, settling);
  const admitted = await trx
    .updateTable('nodes')
    .set({ status: 'member', updated_at: sql<Date>`now()` })
    .where('id', '=', node.id)
    .returningAll()
    .returning(onlineSql('nodes').as('online'))
    .executeTakeFirstOrThrow();
  return { node: toNodeView(admitted), joined: true };
}
