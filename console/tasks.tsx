import { signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { ApiError, api, call, qs } from './api.ts';
import type { ApiData, Task } from './api-types.ts';
import { reachable } from './connection.ts';
import { useLoad } from './load.tsx';
import { said } from './messages.ts';
import { allNodes } from './nodes.ts';
import { canAct, poll } from './state.ts';

type Tasks = ApiData['GET /api/tasks'];
export interface TaskFilter {
  status?: Task['status'] | '';
  kind?: string;
  nodeId?: string;
}

/** The cluster's newest tasks (what the pages follow), whatever the panel's filter. */
export const tasks = signal<Task[]>([]);
/** The panel's filter, and the tasks it selects (null: no filter, the panel shows `tasks`). */
export const taskFilter = signal<TaskFilter>({});
const filtered = signal<Task[] | null>(null);
const answers = signal<Record<number, { ok: boolean; text: string }>>({});
const COLLAPSED_KEY = 'hostmgr.tasks.collapsed';
const collapsed = signal(localStorage.getItem(COLLAPSED_KEY) === '1');

const STATUSES: Task['status'][] = ['queued', 'running', 'success', 'failed', 'cancelled', 'interrupted'];
const active = (f: TaskFilter) => Boolean(f.status || f.kind || f.nodeId);

/** The newest tasks, plus the newest failures even when newer work has pushed them off that page: failures are kept. */
export const refreshTasks = async () => {
  const f = taskFilter.value;
  const [recent, failed, chosen] = await Promise.all([
    api<Tasks>('GET', '/tasks?size=30'),
    api<Tasks>('GET', '/tasks?status=failed&size=10'),
    // the filter asks the API, so it finds older matches too, not only those among the newest 30
    active(f) ? api<Tasks>('GET', `/tasks${qs({ status: f.status, kind: f.kind, nodeId: f.nodeId, size: 30 })}`) : null,
  ]);
  const seen = new Set(recent.data.map((t) => t.id));
  tasks.value = [...recent.data, ...failed.data.filter((t) => !seen.has(t.id))];
  if (taskFilter.value === f) filtered.value = chosen ? chosen.data : null;
};

const live = (t: Task) => t.status === 'queued' || t.status === 'running';
/** queued/running first (newest first within each group), then failures and the rest as the API lists them. */
export const ordered = (list: Task[]) => [...list.filter(live), ...list.filter((t) => !live(t))];

async function cancel(t: Task) {
  try {
    const res = await call<ApiData['POST /api/tasks/{id}/cancel']>('POST', `/tasks/${t.id}/cancel`);
    answers.value = { ...answers.value, [t.id]: { ok: true, text: said(res.message) } };
  } catch (err) {
    answers.value = { ...answers.value, [t.id]: { ok: false, text: err instanceof ApiError ? err.message : String(err) } };
  }
  await refreshTasks();
}

/** The answer to a cancel: the API's words, in the error style when it refused. */
const Outcome = ({ of }: { of?: { ok: boolean; text: string } }) =>
  !of ? null : of.ok ? (
    <p class="answer" role="status">
      {of.text}
    </p>
  ) : (
    <p class="error" role="alert">
      {of.text}
    </p>
  );

function setFilter(f: TaskFilter) {
  taskFilter.value = f;
  filtered.value = null;
  void refreshTasks().catch(() => undefined);
}

function toggle() {
  collapsed.value = !collapsed.value;
  localStorage.setItem(COLLAPSED_KEY, collapsed.value ? '1' : '0');
}

/**
 * The task panel on every page: what runs, what waits, what failed — with Cancel for operators. It can be
 * collapsed to its heading (remembered in this browser) and filtered by status, kind and node; its list
 * scrolls within a bounded height. With the API gone it says its tasks are as last read.
 */
export function TaskPanel() {
  useEffect(() => poll(refreshTasks, 1500), []);
  const nodes = useLoad(allNodes);
  const f = taskFilter.value;
  const list = ordered(active(f) ? (filtered.value ?? []) : tasks.value);
  const liveCount = tasks.value.filter(live).length;
  const kinds = [...new Set([...tasks.value.map((t) => t.kind), ...(f.kind ? [f.kind] : [])])].sort();
  const nodeName = new Map((nodes.data ?? []).map((n) => [n.id, n.name]));
  return (
    <section class={`tasks${collapsed.value ? ' collapsed' : ''}`} aria-labelledby="tasks-h">
      <div class="task-tools">
        <h2 id="tasks-h">Tasks</h2>
        <button type="button" class="small" aria-expanded={!collapsed.value} aria-controls="task-body" onClick={toggle}>
          {collapsed.value ? `Show tasks (${liveCount} running or queued)` : 'Hide tasks'}
        </button>
        {!reachable.value ? <span class="warning">The API cannot be reached: these tasks are as last read.</span> : null}
      </div>
      {collapsed.value ? null : (
        <div id="task-body">
          <form class="task-tools" aria-label="Filter tasks" onSubmit={(e) => e.preventDefault()}>
            <label>
              Status{' '}
              <select name="status" value={f.status ?? ''} onChange={(e) => setFilter({ ...f, status: e.currentTarget.value as TaskFilter['status'] })}>
                <option value="">any</option>
                {STATUSES.map((s) => (
                  <option key={s} value={s}>
                    {s}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Kind{' '}
              <select name="kind" value={f.kind ?? ''} onChange={(e) => setFilter({ ...f, kind: e.currentTarget.value })}>
                <option value="">any</option>
                {kinds.map((k) => (
                  <option key={k} value={k}>
                    {k}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Node{' '}
              <select name="nodeId" value={f.nodeId ?? ''} onChange={(e) => setFilter({ ...f, nodeId: e.currentTarget.value })}>
                <option value="">any</option>
                {(nodes.data ?? []).map((n) => (
                  <option key={n.id} value={n.id}>
                    {n.name}
                  </option>
                ))}
              </select>
            </label>
            {active(f) ? (
              <button type="button" class="small" onClick={() => setFilter({})}>
                Clear task filter
              </button>
            ) : null}
          </form>
          <section class="task-list" tabindex={0} aria-label="Task list">
            {list.length === 0 ? (
              <p class="muted">{active(f) ? (filtered.value === null ? 'Loading…' : 'No task matches this filter.') : 'No tasks yet.'}</p>
            ) : null}
            <ul>
              {list.map((t) => (
                <li key={t.id} class={`task ${t.status}`} data-task-id={t.id} data-status={t.status} data-kind={t.kind}>
                  <div class="task-head">
                    <span class="badge">{t.status}</span> <strong>{t.kind}</strong> <span class="muted">#{t.id}</span>{' '}
                    {t.resource ? <span>{t.resource}</span> : null} {t.nodeId ? <span class="muted">on {nodeName.get(t.nodeId) ?? t.nodeId}</span> : null}{' '}
                    {t.phase ? <span class="muted">{t.phase}</span> : null}
                    {canAct() && live(t) ? (
                      <button type="button" class="small" onClick={() => cancel(t)}>
                        Cancel task {t.id}
                      </button>
                    ) : null}
                  </div>
                  {live(t) ? <progress max={100} value={t.progress ?? 0} aria-label={`task ${t.id} progress`} /> : null}
                  {t.error ? <p class="error">{t.error}</p> : null}
                  <Outcome of={answers.value[t.id]} />
                  {t.output && live(t) ? <pre class="tail">{t.output.split('\n').slice(-4).join('\n')}</pre> : null}
                </li>
              ))}
            </ul>
          </section>
        </div>
      )}
    </section>
  );
}
