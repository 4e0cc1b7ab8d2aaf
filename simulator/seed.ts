import type { SimHost } from '#shared/seed/host/schema';

/**
 * Picks the simulated host out of a JSON document: a seed file (`{hosts: {<nodeId>: host}}` or
 * `{hosts: [{nodeId, …host}]}`) or a bare host. With several hosts, `nodeId` must name one.
 */
export function loadSeedHost(doc: unknown, nodeId?: string): SimHost {
  const d = doc as { hosts?: unknown; hostname?: unknown };
  if (typeof d?.hostname === 'string' && d.hosts === undefined) return d as SimHost;
  const hosts = d?.hosts;
  if (Array.isArray(hosts)) {
    const entries = hosts as (SimHost & { nodeId?: string })[];
    const found = nodeId ? entries.find((h) => h.nodeId === nodeId) : entries.length === 1 ? entries[0] : undefined;
    if (!found) throw new Error(nodeId ? `seed has no host for node ${nodeId}` : 'seed has several hosts: set the node id');
    const { nodeId: _drop, ...host } = found;
    void _drop;
    return host as SimHost;
  }
  if (hosts && typeof hosts === 'object') {
    const map = hosts as Record<string, SimHost>;
    const keys = Object.keys(map);
    const key = nodeId ?? (keys.length === 1 ? keys[0] : undefined);
    if (!key || !map[key]) throw new Error(nodeId ? `seed has no host for node ${nodeId}` : 'seed has several hosts: set the node id');
    return map[key];
  }
  throw new Error('not a seed file (no hosts) nor a host (no hostname)');
}
