import { api } from './api.ts';
import type { ApiData, Inventory, NodeView, Task } from './api-types.ts';
import { LoadState, useLoad } from './load.tsx';
import { memberNodes } from './nodes.ts';
import { tasks } from './tasks.tsx';

type JailView = ApiData['GET /api/jail/{ctid}'];
interface GuestLine {
  key: string;
  type: 'jail' | 'vm';
  id: number;
  name: string;
  nodeId: string;
  state: string;
  /** the node a migration in flight takes it to */
  movingTo?: string;
}

/** A jail migration finished this recently may not be in its new node's report yet (hosts report every ~minute). */
const SETTLING_MS = 5 * 60_000;

/** The jails a migration task moves or moved lately: their place is read from the store, not only the reports. */
function migratingJails(list: Task[], now: number): number[] {
  const ids = list
    .filter((t) => t.kind === 'jail.migrate' && (!t.finishedAt || now - Date.parse(t.finishedAt) < SETTLING_MS))
    .map((t) => Number(/^jail:(\d+)$/.exec(t.resource)?.[1]))
    .filter(Number.isInteger);
  return [...new Set(ids)].sort((a, b) => a - b);
}

/**
 * Every member's guests from the nodes' own reports, and each jail a migration moves (or just moved) from the
 * store: between the source's report without it and the target's report with it, a jail would otherwise be in
 * no list; it shows "moving to <node>" while the task runs, then on its new node.
 */
async function guests(moving: number[]): Promise<{ nodes: NodeView[]; rows: GuestLine[] }> {
  const nodes = await memberNodes();
  const [reports, views] = await Promise.all([
    Promise.all(nodes.map((n) => api<NodeView>('GET', `/cluster/nodes/${n.id}`))),
    Promise.all(moving.map((ctid) => api<JailView>('GET', `/jail/${ctid}`).catch(() => null))),
  ]);
  const moves = new Map(views.flatMap((v) => (v?.moving ? [[v.ctId, v.moving.targetNodeId] as const] : [])));
  const rows: GuestLine[] = [];
  for (const n of reports) {
    const inv: Inventory = n.inventory ?? {};
    for (const j of inv.jails ?? [])
      rows.push({ key: `j${j.ctid}`, type: 'jail', id: j.ctid, name: j.name, nodeId: n.id, state: j.state, movingTo: moves.get(j.ctid) });
    for (const v of inv.vms ?? []) rows.push({ key: `v${v.rid}`, type: 'vm', id: v.rid, name: v.name, nodeId: n.id, state: v.state });
  }
  for (const v of views) {
    if (!v || rows.some((r) => r.type === 'jail' && r.id === v.ctId)) continue;
    rows.push({ key: `j${v.ctId}`, type: 'jail', id: v.ctId, name: v.name, nodeId: v.nodeId, state: v.state, movingTo: v.moving?.targetNodeId });
  }
  return { nodes, rows };
}

export function Guests() {
  const moving = migratingJails(tasks.value, Date.now());
  // a migration's start and end change what the store says: read again then
  const phase = tasks.value
    .filter((t) => t.kind === 'jail.migrate' && moving.includes(Number(t.resource.slice(5))))
    .map((t) => `${t.id}:${t.status}`)
    .join();
  const all = useLoad(() => guests(moving), [moving.join(), phase]);
  const nodeName = new Map((all.data?.nodes ?? []).map((n) => [n.id, n.name]));
  const named = (id: string) => nodeName.get(id) ?? id;
  const rows = all.data?.rows ?? [];
  return (
    <div>
      <h1>Guests</h1>
      <LoadState load={all} count={rows.length} empty="No guests: no member reports a jail or a VM." />
      <table>
        <thead>
          <tr>
            <th scope="col">Guest</th>
            <th scope="col">Type</th>
            <th scope="col">Node</th>
            <th scope="col">State</th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r) => (
            <tr key={r.key} data-guest={`${r.type}-${r.id}`}>
              <td>
                <a href={`#/${r.type}/${r.id}`}>
                  {r.name} ({r.id})
                </a>
              </td>
              <td>{r.type === 'jail' ? 'jail' : 'VM'}</td>
              <td>
                <a href={`#/node/${r.nodeId}`}>{named(r.nodeId)}</a>
              </td>
              <td data-state={r.movingTo ? 'moving' : r.state}>{r.movingTo ? `moving to ${named(r.movingTo)}` : r.state}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
