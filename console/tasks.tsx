import { signal } from '@preact/signals';
import { useEffect } from 'preact/hooks';
import { ApiError, api, call } from './api.ts';
import { said } from './messages.ts';
import { canAct, poll } from './state.ts';
import type { Page, Task } from './types.ts';

export const tasks = signal<Task[]>([]);
const answers = signal<Record<number, string>>({});
/** The newest tasks, plus the newest failures even when newer work has pushed them off that page: failures are kept. */
export const refreshTasks = async () => {
  const [recent, failed] = await Promise.all([api<Page<Task>>('GET', '/tasks?size=30'), api<Page<Task>>('GET', '/tasks?status=failed&size=10')]);
  const seen = new Set(recent.data.map((t) => t.id));
  tasks.value = [...recent.data, ...failed.data.filter((t) => !seen.has(t.id))];
};

const live = (t: Task) => t.status === 'queued' || t.status === 'running';
/** queued/running first (newest first within each group), then failures and the rest as the API lists them. */
export const ordered = (list: Task[]) => [...list.filter(live), ...list.filter((t) => !live(t))];

async function cancel(t: Task) {
  try {
    const res = await call<Task>('POST', `/tasks/${t.id}/cancel`);
    answers.value = { ...answers.value, [t.id]: said(res.message) };
  } catch (err) {
    answers.value = { ...answers.value, [t.id]: err instanceof ApiError ? err.message : String(err) };
  }
  await refreshTasks();
}

/** The task panel on every page: what runs, what waits, what failed — with Cancel for operators. */
export function TaskPanel() {
  useEffect(() => poll(refreshTasks, 1500), []);
  const list = ordered(tasks.value);
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: the panel scrolls on its own, so a keyboard must reach it to scroll it (WCAG 2.1.1)
    <section class="tasks" aria-label="Tasks" tabIndex={0}>
      <h2>Tasks</h2>
      {list.length === 0 ? <p class="muted">No tasks yet.</p> : null}
      <ul>
        {list.map((t) => (
          <li key={t.id} class={`task ${t.status}`} data-task-id={t.id} data-status={t.status}>
            <div class="task-head">
              <span class="badge">{t.status}</span> <strong>{t.kind}</strong> <span class="muted">#{t.id}</span> {t.resource ? <span>{t.resource}</span> : null}{' '}
              {t.phase ? <span class="muted">{t.phase}</span> : null}
              {canAct() && live(t) ? (
                <button type="button" class="small" onClick={() => cancel(t)}>
                  Cancel task {t.id}
                </button>
              ) : null}
            </div>
            {live(t) ? <progress max={100} value={t.progress ?? 0} aria-label={`task ${t.id} progress`} /> : null}
            {t.error ? <p class="error">{t.error}</p> : null}
            {answers.value[t.id] ? (
              <p class="answer" role="status">
                {answers.value[t.id]}
              </p>
            ) : null}
            {t.output && live(t) ? <pre class="tail">{t.output.split('\n').slice(-4).join('\n')}</pre> : null}
          </li>
        ))}
      </ul>
    </section>
  );
}
