import { useState } from 'preact/hooks';
import { api, call, qs } from './api.ts';
import { LoadState, useAction, useLoad, when } from './load.tsx';
import { said } from './messages.ts';
import { canAct } from './state.ts';
import { refreshTasks } from './tasks.tsx';
import type { ApiData } from './api-types.ts';
import { bellCount, refreshBell } from './bell.tsx';
import { Channels, Rules } from './notify.tsx';

export function Notifications() {
  const list = useLoad(() => api<ApiData['GET /api/notifications']>('GET', '/notifications?size=100'), [bellCount.value]);
  const act = useAction();
  const dismiss = (path: string) =>
    act.run(async () => {
      const res = await call('POST', path);
      await Promise.all([list.reload(), refreshBell()]);
      return said(res.message);
    });
  return (
    <div>
      <h1>Notifications</h1>
      <LoadState load={list} count={list.data?.data.length} empty="No active notifications." />
      {canAct() ? (
        <button type="button" disabled={act.busy} onClick={() => dismiss('/notifications/dismiss-all')}>
          Dismiss all global notifications
        </button>
      ) : null}
      <act.Answer />
      <ul class="notifications">
        {(list.data?.data ?? []).map((n) => (
          <li key={n.id} class={`sev-${n.severity}`} data-notification={n.id}>
            <strong>{n.title}</strong> <span class="badge">{n.severity}</span> <span class="muted">{when(n.createdAt)}</span>
            <p>{n.body}</p>
            {canAct() ? (
              <button type="button" class="small" disabled={act.busy} onClick={() => dismiss(`/notifications/${n.id}/dismiss`)}>
                Dismiss “{n.title}”
              </button>
            ) : null}
          </li>
        ))}
      </ul>
      <Channels />
      <Rules />
    </div>
  );
}

/** The backups page lives in backups.tsx; the shell imports it from here. */
export { Backups } from './backups.tsx';

export function Certificates() {
  const list = useLoad(() => api<ApiData['GET /api/certificates']>('GET', '/certificates?size=100'));
  const act = useAction();
  const go = (fn: () => Promise<{ message: string }>) =>
    act.run(async () => {
      const res = await fn();
      await Promise.all([list.reload(), refreshTasks()]);
      return said(res.message);
    });
  return (
    <div>
      <h1>Certificates</h1>
      <LoadState load={list} count={list.data?.data.length} empty="No certificates yet." />
      <act.Answer />
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Domain</th>
            <th scope="col">Type</th>
            <th scope="col">Status</th>
            <th scope="col">Expires</th>
            <th scope="col">Fingerprint</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {(list.data?.data ?? []).map((c) => (
            <tr key={c.id}>
              <td>{c.name}</td>
              <td>{c.domain}</td>
              <td>{c.type}</td>
              <td>
                {c.issuanceStatus}
                {c.issuanceError ? <span class="error"> {c.issuanceError}</span> : null}
              </td>
              <td>{when(c.notAfter || null)}</td>
              <td class="mono">{c.fingerprint || '—'}</td>
              <td>
                {canAct() && c.issuanceStatus === 'failed' ? (
                  <button type="button" class="small" disabled={act.busy} onClick={() => go(() => call('POST', `/certificates/${c.id}/retry`))}>
                    Retry {c.name}
                  </button>
                ) : null}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {canAct() ? (
        <form
          class="action"
          onSubmit={(e) => {
            e.preventDefault();
            const f = new FormData(e.currentTarget);
            void go(() => call('POST', '/certificates', { name: f.get('name'), domain: f.get('domain'), type: f.get('type') }));
          }}
        >
          <fieldset>
            <legend>New certificate</legend>
            <label>
              Name <input name="name" required />
            </label>
            <label>
              Domain <input name="domain" required />
            </label>
            <label>
              Type{' '}
              <select name="type">
                <option value="managed">managed (ACME)</option>
                <option value="self-signed">self-signed</option>
              </select>
            </label>
            <button type="submit" disabled={act.busy}>
              Create certificate
            </button>
          </fieldset>
        </form>
      ) : null}
    </div>
  );
}

export function Audit() {
  const [filter, setFilter] = useState<Record<string, string>>({});
  const rows = useLoad(() => api<ApiData['GET /api/audit']>('GET', `/audit${qs({ ...filter, size: 50 })}`), [filter]);
  return (
    <div>
      <h1>Audit log</h1>
      <form
        class="toolbar"
        onSubmit={(e) => {
          e.preventDefault();
          const f = new FormData(e.currentTarget);
          setFilter(Object.fromEntries(['route', 'outcome', 'tokenId', 'from', 'to'].map((k) => [k, String(f.get(k) ?? '')])));
        }}
      >
        <label>
          Route <input name="route" placeholder="/api/tasks/{id}/cancel" />
        </label>
        <label>
          Outcome <input name="outcome" placeholder="4xx" size={4} />
        </label>
        <label>
          Token id <input name="tokenId" type="number" min={1} size={4} />
        </label>
        <label>
          From <input name="from" placeholder="2026-01-01T00:00:00Z" />
        </label>
        <label>
          To <input name="to" placeholder="2026-12-31T00:00:00Z" />
        </label>
        <button type="submit">Filter audit log</button>
      </form>
      <LoadState load={rows} count={rows.data?.data.length} empty="No audit entries match." />
      <table class="audit">
        <thead>
          <tr>
            <th scope="col">When</th>
            <th scope="col">Token</th>
            <th scope="col">Request</th>
            <th scope="col">Resource</th>
            <th scope="col">Status</th>
            <th scope="col">Task</th>
          </tr>
        </thead>
        <tbody>
          {(rows.data?.data ?? []).map((r) => (
            <tr key={r.id} data-route={r.route}>
              <td>{when(r.at)}</td>
              <td>
                {r.tokenName} ({r.role})
              </td>
              <td class="mono">
                {r.method} {r.route}
              </td>
              <td>{r.resource}</td>
              <td>{r.status ?? '…'}</td>
              <td>{r.taskId ?? ''}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
