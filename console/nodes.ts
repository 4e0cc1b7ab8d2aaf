import { api } from './api.ts';
import type { ApiData, NodeView } from './api-types.ts';

/** Every cluster member, page after page (the list answers at most 100 a page). */
export const memberNodes = (): Promise<NodeView[]> => nodePages('status=member&');

/** Every node, pending ones too: names for what may run on a node not yet admitted (its tasks, its guests). */
export const allNodes = (): Promise<NodeView[]> => nodePages('');

async function nodePages(filter: string): Promise<NodeView[]> {
  const out: NodeView[] = [];
  for (let page = 1; ; page++) {
    const p = await api<ApiData['GET /api/cluster/nodes']>('GET', `/cluster/nodes?${filter}size=100&page=${page}`);
    out.push(...p.data);
    if (page >= p.last_page || p.data.length === 0) return out;
  }
}
