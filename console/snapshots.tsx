import { api, call } from './api.ts';
import type { GuestSnapshot, GuestSnapshotList, Task } from './api-types.ts';
import { ActionForm } from './action-form.tsx';
import { LoadState, useAction, useLoad, when } from './load.tsx';
import { said } from './messages.ts';
import { useEffect, useState } from 'preact/hooks';
import { canAct, poll } from './state.ts';
import { refreshTasks } from './tasks.tsx';

/** polls of the list after the task ended: the inventory that shows its result follows the task's end */
const AFTER_END_POLLS = 5;

/**
 * A guest's snapshots: a table with a rollback and a destroy button per snapshot, each behind a confirmation
 * that names the guest (and, for a rollback past newer snapshots, every snapshot it destroys), and a form to take
 * a new one on all the guest's datasets. A queued task is followed: the list reloads while it runs and for a few
 * polls after it ends, because the snapshots are the host's next inventory, which the agent sends after the task.
 */
export function GuestSnapshots({ type, id }: { type: 'jail' | 'vm'; id: number }) {
  const base = `/guests/${type}/${id}/snapshots`;
  const list = useLoad(() => api<GuestSnapshotList>('GET', base), [type, id]);
  const act = useAction();
  const [following, follow] = useState<number | null>(null);
  useEffect(() => {
    if (following === null) return;
    let after = 0;
    const stop = poll(async () => {
      const t = await api<Task>('GET', `/tasks/${following}`);
      await list.reload();
      if (t.status !== 'queued' && t.status !== 'running' && ++after > AFTER_END_POLLS) {
        stop();
        follow(null);
      }
    }, 1000);
    return stop;
  }, [following]);
  const guest = `${type === 'jail' ? 'jail' : 'VM'} ${id}${list.data ? ` (${list.data.name})` : ''}`;
  const snaps = list.data?.snapshots ?? [];
  const run = (question: string, method: string, path: string, body: unknown) => {
    if (!window.confirm(question)) return;
    void act.run(async () => {
      const res = await call<{ id?: number }>(method, path, body);
      if (res.httpStatus === 202 && typeof res.data?.id === 'number') follow(res.data.id);
      await refreshTasks();
      list.reload();
      return said(res.message);
    });
  };
  const rollback = (s: GuestSnapshot) => {
    const own = snaps.filter((x) => x.dataset === s.dataset);
    const newer = own.slice(own.indexOf(s) + 1).map((x) => x.snapshot);
    const question = newer.length
      ? `Roll ${guest} back to ${s.snapshot}? This destroys the newer snapshots: ${newer.join(', ')}.`
      : `Roll ${guest} back to ${s.snapshot}? Changes since then are lost.`;
    run(question, 'POST', `${base}/rollback`, { snapshot: s.snapshot, destroyNewer: newer.length > 0 });
  };
  return (
    <section aria-label="Snapshots">
      <h2>Snapshots</h2>
      <LoadState load={list} count={snaps.length} empty="No snapshots yet." />
      <table>
        <thead>
          <tr>
            <th>Snapshot</th>
            <th>Taken</th>
            <th>Holds</th>
            <th>Clones</th>
            <th>Actions</th>
          </tr>
        </thead>
        <tbody>
          {snaps.map((s) => (
            <tr key={s.snapshot}>
              <td>{s.snapshot}</td>
              <td>{when(s.createdAt)}</td>
              <td>{s.holds.join(', ') || '—'}</td>
              <td>{s.clones.join(', ') || (s.backupJob !== null ? `backup job ${s.backupJob}` : '—')}</td>
              <td>
                <button type="button" aria-label={`Roll back to ${s.snapshot}`} disabled={!canAct()} onClick={() => rollback(s)}>
                  Roll back
                </button>{' '}
                <button
                  type="button"
                  aria-label={`Destroy ${s.snapshot}`}
                  disabled={!canAct()}
                  onClick={() => run(`Destroy snapshot ${s.snapshot} of ${guest}? It cannot be undone.`, 'POST', `${base}/destroy`, { snapshot: s.snapshot })}
                >
                  Destroy
                </button>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      <act.Answer />
      <ActionForm
        label="Take snapshot"
        submit={async (f) => {
          const res = await call<{ id?: number }>('POST', base, { name: String(f.get('name') ?? '') });
          if (res.httpStatus === 202 && typeof res.data?.id === 'number') follow(res.data.id);
          await refreshTasks();
          list.reload();
          return res.message;
        }}
      >
        <label>
          Name <input name="name" required maxLength={255} />
        </label>
      </ActionForm>
    </section>
  );
}
