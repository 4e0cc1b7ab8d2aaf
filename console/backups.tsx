import { useState } from 'preact/hooks';
import { api, call, qs } from './api.ts';
import type { ApiData, BackupJob } from './api-types.ts';
import { BackupJobForm } from './backup-job-form.tsx';
import { LoadState, useAction, useLoad, when } from './load.tsx';
import { said } from './messages.ts';
import { memberNodes } from './nodes.ts';
import { canAct } from './state.ts';
import { refreshTasks } from './tasks.tsx';

const where = (j: BackupJob) => (j.target === null ? 'no target: the job cannot run until one is set' : j.targetEndpoint);

/**
 * Backup jobs with Run, Restore (E15), Edit (`PUT`) and Delete (`DELETE`, after a question naming the job),
 * a create form, and the jobs' events (E12) filtered by job and text.
 */
export function Backups() {
  const jobs = useLoad(() => api<ApiData['GET /api/cluster/backups/jobs']>('GET', '/cluster/backups/jobs?size=100'));
  const nodes = useLoad(memberNodes);
  const [filter, setFilter] = useState<{ jobId?: string; search?: string }>({});
  const [editing, setEditing] = useState<number | null>(null);
  const events = useLoad(
    () => api<ApiData['GET /api/cluster/backups/events/remote']>('GET', `/cluster/backups/events/remote${qs({ ...filter, size: 50 })}`),
    [filter],
  );
  const act = useAction();
  const go = (fn: () => Promise<{ message: string }>) =>
    act.run(async () => {
      const res = await fn();
      await Promise.all([refreshTasks(), events.reload(), jobs.reload()]);
      return said(res.message);
    });
  const run = (j: BackupJob) => go(() => call('POST', `/cluster/backups/jobs/${j.id}/run`));
  const restore = (j: BackupJob, snapshot: string) => go(() => call('POST', `/cluster/backups/jobs/${j.id}/restore`, snapshot ? { snapshot } : {}));
  const remove = (j: BackupJob) => {
    if (!window.confirm(`Delete backup job ${j.name} and its events? Snapshots on the hosts stay.`)) return;
    if (editing === j.id) setEditing(null);
    void go(() => call<ApiData['DELETE /api/cluster/backups/jobs/{id}']>('DELETE', `/cluster/backups/jobs/${j.id}`));
  };
  const list = jobs.data?.data ?? [];
  const edited = list.find((j) => j.id === editing);
  return (
    <div>
      <h1>Backups</h1>
      <LoadState load={jobs} count={list.length} empty="No backup jobs yet." />
      <act.Answer />
      <table>
        <thead>
          <tr>
            <th scope="col">Job</th>
            <th scope="col">Source</th>
            <th scope="col">Target</th>
            <th scope="col">Schedule</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {list.map((j) => (
            <tr key={j.id} data-job={j.id}>
              <td>{j.name}</td>
              <td>{j.sourceDataset}</td>
              <td class={j.target === null ? 'warning' : undefined}>{where(j)}</td>
              <td>{j.enabled ? j.schedule : 'disabled'}</td>
              <td>
                {canAct() ? (
                  <>
                    <button type="button" class="small" disabled={act.busy} onClick={() => run(j)}>
                      Run {j.name}
                    </button>{' '}
                    <button type="button" class="small" aria-expanded={editing === j.id} onClick={() => setEditing(editing === j.id ? null : j.id)}>
                      Edit {j.name}
                    </button>{' '}
                    <button type="button" class="small" disabled={act.busy} onClick={() => remove(j)}>
                      Delete {j.name}
                    </button>{' '}
                    <form
                      class="inline"
                      onSubmit={(e) => {
                        e.preventDefault();
                        void restore(j, String(new FormData(e.currentTarget).get('snapshot') ?? ''));
                      }}
                    >
                      <label>
                        Snapshot <input name="snapshot" placeholder="latest" />
                      </label>
                      <button type="submit" class="small" disabled={act.busy}>
                        Restore {j.name}
                      </button>
                    </form>
                  </>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {canAct() && edited ? <BackupJobForm key={`edit-${edited.id}`} nodes={nodes.data ?? []} job={edited} saved={jobs.reload} /> : null}
      {canAct() ? <BackupJobForm nodes={nodes.data ?? []} saved={jobs.reload} /> : null}
      <h2>Events</h2>
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          setFilter({ jobId: String(f.get('jobId') ?? ''), search: String(f.get('search') ?? '') });
        }}
      >
        <label>
          Job{' '}
          <select name="jobId">
            <option value="">all</option>
            {list.map((j) => (
              <option key={j.id} value={j.id}>
                {j.name}
              </option>
            ))}
          </select>
        </label>
        <label>
          Search <input name="search" />
        </label>
        <button type="submit">Filter events</button>
      </form>
      <LoadState load={events} count={events.data?.data.length} empty="No events match." />
      <table class="events">
        <thead>
          <tr>
            <th scope="col">Event</th>
            <th scope="col">Job</th>
            <th scope="col">Source</th>
            <th scope="col">Status</th>
            <th scope="col">Started</th>
            <th scope="col">Error</th>
          </tr>
        </thead>
        <tbody>
          {(events.data?.data ?? []).map((e) => (
            <tr key={e.id} data-event={e.id}>
              <td>{e.id}</td>
              <td>{e.jobId}</td>
              <td>{e.sourceDataset}</td>
              <td>{e.status}</td>
              <td>{when(e.startedAt)}</td>
              <td>{e.error}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
