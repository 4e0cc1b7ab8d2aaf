import type { Client } from './client.ts';
import { findNode, inventories } from './cluster-lookup.ts';

/**
 * Where a command takes a node or a guest, a person may give its name: a node's name for a node id
 * (`nodeId`, `targetNodeUuid` …), a jail's name for a ctid, a VM's name for a rid. A UUID or a number is passed
 * on as it is (the API's own answer says when it names nothing); a name is looked up in the cluster's nodes
 * and their member nodes' inventories, and must name exactly one.
 */
export type RefKind = 'node' | 'jail' | 'vm';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** The kind of reference a parameter or body field holds, by its name. */
export function refKind(name: string): RefKind | null {
  if (/^(target)?node(Id|Uuid)$/i.test(name)) return 'node';
  if (name === 'ctid') return 'jail';
  if (name === 'rid') return 'vm';
  return null;
}

/** The id a reference stands for: the node's UUID, the jail's ctid, the VM's rid (as text). */
export async function resolveRef(client: Client, kind: RefKind, raw: string): Promise<string> {
  if (kind === 'node') return UUID.test(raw) ? raw : (await findNode(client, raw)).id;
  if (/^\d+$/.test(raw)) return raw;
  const [section, key] = kind === 'jail' ? (['jails', 'ctid'] as const) : (['vms', 'rid'] as const);
  const guests = (await inventories(client))
    .filter(({ node }) => node.status === 'member')
    .flatMap(({ node, inventory }) =>
      ((inventory[section] as Record<string, unknown>[] | undefined) ?? []).map((g): Record<string, unknown> => ({ ...g, node: node.name })),
    );
  const hits = guests.filter((g) => g.name === raw);
  if (hits.length === 1) return String(hits[0][key]);
  const known = guests.map((g) => `${String(g.name)} (${String(g[key])} on ${g.node})`).join(', ') || 'none';
  throw new Error(
    hits.length
      ? `"${raw}" names ${hits.length} ${section}; give the ${key}. ${section}: ${known}`
      : `no ${kind === 'jail' ? 'jail' : 'VM'} "${raw}". ${section}: ${known}`,
  );
}
