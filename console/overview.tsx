import { api, call } from './api.ts';
import { ErrorLine, LoadState, useAction, useLoad, when } from './load.tsx';
import { said } from './messages.ts';
import { capabilitySummary } from './node.tsx';
import { isAdmin } from './state.ts';
import { tasks } from './tasks.tsx';
import type { ApiData, BackupEvent, NodeView } from './api-types.ts';

const DAY = 86_400_000;

/** What the node can do and what it lacks (details and fixes on its page). */
function Capabilities({ node }: { node: NodeView }) {
  if (!node.capabilities) return <span class="muted">not reported</span>;
  const { yes, no } = capabilitySummary(node.capabilities as Parameters<typeof capabilitySummary>[0]);
  return (
    <>
      <span class="muted">{yes.join(', ')}</span>
      {no.length ? (
        <>
          {' '}
          <a class="warning" href={`#/node/${node.id}`}>
            missing: {no.join(', ')}
          </a>
        </>
      ) : null}
    </>
  );
}

const finished = (e: BackupEvent) => e.status !== 'queued' && e.status !== 'running';

/**
 * Each job's last run: its newest finished event, asked per job (the cluster's newest events may all be one
 * busy job's). A run queued or under way has no outcome yet and must not hide the failure before it.
 */
async function lastFinishedRuns(): Promise<Array<BackupEvent | undefined>> {
  const jobs = await api<ApiData['GET /api/cluster/backups/jobs']>('GET', '/cluster/backups/jobs?size=100');
  return Promise.all(
    jobs.data.map(async (j) =>
      (await api<ApiData['GET /api/cluster/backups/events/remote']>('GET', `/cluster/backups/events/remote?jobId=${j.id}&size=10`)).data.find(finished),
    ),
  );
}

export function Overview() {
  const nodes = useLoad(() => api<ApiData['GET /api/cluster/nodes']>('GET', '/cluster/nodes?size=100'));
  const certs = useLoad(() => api<ApiData['GET /api/certificates']>('GET', '/certificates?size=100'));
  const lastRuns = useLoad(lastFinishedRuns);
  const act = useAction();
  const list = nodes.data?.data ?? [];
  const members = list.filter((n) => n.status === 'member');
  const pending = list.filter((n) => n.status === 'pending');
  const failing = tasks.value.filter((t) => t.status === 'failed' && Date.now() - Date.parse(t.finishedAt ?? t.createdAt) < DAY);
  const expiring = (certs.data?.data ?? []).filter((c) => c.notAfter && Date.parse(c.notAfter) - Date.now() < 30 * DAY);
  const failedJobs = (lastRuns.data ?? []).filter((e) => e?.status === 'failed');
  const approve = (n: NodeView, form: HTMLFormElement) =>
    act.run(async () => {
      const f = new FormData(form);
      const res = await call('POST', '/cluster/join', { clusterKey: f.get('clusterKey'), leaderIp: f.get('leaderIp'), nodeId: n.id, nodeIp: n.ip });
      await nodes.reload();
      return said(res.message);
    });
  return (
    <div>
      <h1>Overview</h1>
      <LoadState load={nodes} count={nodes.data?.data.length} empty="No nodes yet: start an agent to register one." />
      <ErrorLine error={certs.error ?? lastRuns.error} />
      <div class="cards">
        <div class="card">
          <h2>Nodes online</h2>
          <p class="big" data-count="nodes-online">
            {members.filter((n) => n.online).length}
          </p>
          <p class="muted">
            of <span data-count="nodes-members">{members.length}</span> members
          </p>
        </div>
        <div class="card">
          <h2>Failing tasks (24 h)</h2>
          <p class="big" data-count="failing-tasks">
            {failing.length}
          </p>
        </div>
        <div class="card">
          <h2>Certificates expiring in 30 days</h2>
          <p class="big" data-count="expiring-certificates">
            {expiring.length}
          </p>
        </div>
        <div class="card">
          <h2>Backup jobs whose last run failed</h2>
          <p class="big" data-count="failed-backup-jobs">
            {failedJobs.length}
          </p>
        </div>
      </div>
      <h2>Nodes</h2>
      <table>
        <thead>
          <tr>
            <th scope="col">Name</th>
            <th scope="col">Address</th>
            <th scope="col">State</th>
            <th scope="col">Last heartbeat</th>
            <th scope="col">Agent</th>
            <th scope="col">Capabilities</th>
          </tr>
        </thead>
        <tbody>
          {members.map((n) => (
            <tr key={n.id} data-node={n.name}>
              <td>
                <a href={`#/node/${n.id}`}>{n.name}</a>
              </td>
              <td>{n.ip}</td>
              <td>
                <span class={`badge ${n.online ? 'ok' : 'bad'}`}>{n.online ? 'online' : 'offline'}</span>
              </td>
              <td>{when(n.lastSeenAt)}</td>
              <td>{n.agentVersion}</td>
              <td data-capabilities>
                <Capabilities node={n} />
              </td>
            </tr>
          ))}
        </tbody>
      </table>
      {pending.length ? (
        <>
          <h2>Pending joins</h2>
          <ul>
            {pending.map((n) => (
              <li key={n.id}>
                {n.name} ({n.ip}){' '}
                {isAdmin() ? (
                  <form
                    class="inline"
                    onSubmit={(e) => {
                      e.preventDefault();
                      void approve(n, e.currentTarget);
                    }}
                  >
                    <label>
                      Cluster key <input name="clusterKey" type="password" required autocomplete="off" />
                    </label>
                    <label>
                      Leader address <input name="leaderIp" required value={members[0]?.ip ?? ''} />
                    </label>
                    <button type="submit" disabled={act.busy}>
                      Approve {n.name}
                    </button>
                  </form>
                ) : null}
              </li>
            ))}
          </ul>
          <act.Answer />
        </>
      ) : null}
    </div>
  );
}
