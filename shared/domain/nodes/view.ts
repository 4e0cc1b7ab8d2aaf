import { sql, type Kysely } from 'kysely';
import type { Database, NodeRow } from '#store/tables';
import { iso, offsetOf } from '#store/paging';
import { onlineSql } from '#store/presence';
import type { HostCapabilities } from '#shared/agent-api/capabilities';
import type { NodeView } from '#shared/agent-api/nodes';
import type { InventoryView } from '#shared/agent-api/inventory';
import { requireNode } from './require-node.ts';

// a node's record is on the agent wire too (the register answer): declared there once
export type { NodeView } from '#shared/agent-api/nodes';

function capabilitiesOf(inventory: unknown): HostCapabilities | null {
  const caps = (inventory as { capabilities?: unknown } | null)?.capabilities;
  return caps && typeof caps === 'object' ? (caps as HostCapabilities) : null;
}

export function toNodeView(n: NodeRow & { online: boolean }, withInventory = false): NodeView {
  return {
    id: n.id,
    name: n.name,
    ip: n.ip,
    status: n.status,
    online: Boolean(n.online),
    lastSeenAt: iso(n.last_seen_at),
    heartbeatIntervalS: n.heartbeat_interval_s,
    agentVersion: n.agent_version,
    agentStartedAt: iso(n.agent_started_at),
    registeredAt: iso(n.registered_at),
    inventoryAt: iso(n.inventory_at),
    createdAt: iso(n.created_at)!,
    capabilities: capabilitiesOf(n.inventory),
    // stored only after the agent endpoint validated it against the inventory schema, which the view's is part of
    ...(withInventory ? { inventory: (n.inventory ?? undefined) as InventoryView | undefined } : {}),
  };
}

export async function getNodeView(db: Kysely<Database>, id: string): Promise<NodeView> {
  return toNodeView(await requireNode(db, id), true);
}

interface NodeFilter {
  status?: string;
  online?: boolean;
  page: number;
  size: number;
}

export async function listNodeViews(db: Kysely<Database>, f: NodeFilter): Promise<{ data: NodeView[]; total: number }> {
  const q = db
    .selectFrom('nodes')
    .$if(Boolean(f.status), (x) => x.where('status', '=', f.status!))
    .$if(f.online !== undefined, (x) => x.where(f.online ? onlineSql('nodes') : sql<boolean>`NOT ${onlineSql('nodes')}`));
  const [{ n }] = await q.select((eb) => eb.fn.countAll<number>().as('n')).execute();
  const rows = await q.selectAll().select(onlineSql('nodes').as('online')).orderBy('name').orderBy('id').limit(f.size).offset(offsetOf(f)).execute();
  return { data: rows.map((r) => toNodeView(r)), total: Number(n) };
}
