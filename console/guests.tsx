import { useEffect, useState } from 'preact/hooks';
import { api, call } from './api.ts';
import { ActionForm } from './action-form.tsx';
import { PowerButtons } from './power-buttons.tsx';
import { GuestSnapshots } from './snapshots.tsx';
import { ErrorLine, useLoad } from './load.tsx';
import { allNodes, memberNodes } from './nodes.ts';
import { poll } from './state.ts';
import type { ApiData, Task } from './api-types.ts';

const HOOK_PHASES = ['prestart', 'start', 'poststart', 'prestop', 'stop', 'poststop'] as const;

/** The guests list lives in guest-list.tsx; pages import it from here. */
export { Guests } from './guest-list.tsx';

const send = async (method: string, path: string, body?: unknown) => (await call(method, path, body)).message;

const FINISHED: Task['status'][] = ['success', 'failed', 'cancelled', 'interrupted'];

/**
 * Follows one task until it finishes, then calls `done`: a page whose facts the task changes (a migration moves
 * the jail to another node) reloads them then, without the operator reloading the page.
 */
function useAfterTask(done: () => unknown): (taskId: number) => void {
  const [taskId, setTaskId] = useState<number | null>(null);
  useEffect(() => {
    if (taskId === null) return;
    const stop = poll(async () => {
      const t = await api<Task>('GET', `/tasks/${taskId}`);
      if (!FINISHED.includes(t.status)) return;
      stop();
      setTaskId(null);
      await done();
    }, 1500);
    return stop;
  }, [taskId]);
  return setTaskId;
}

/** A guest's node by its name, linked to its page (any node: a pending one's guests have pages too). */
function NodeLink({ id }: { id: string }) {
  const nodes = useLoad(allNodes);
  return <a href={`#/node/${id}`}>{nodes.data?.find((n) => n.id === id)?.name ?? id}</a>;
}

/** A guest's facts, its node named and linked. */
function Facts<T extends Record<string, unknown>>({ of, keys }: { of: T; keys: readonly (keyof T & string)[] }) {
  return (
    <dl class="facts">
      {keys.map((k) => (
        <div key={k}>
          <dt>{k === 'nodeId' ? 'node' : k}</dt>
          <dd data-fact={k}>{k === 'nodeId' ? <NodeLink id={String(of[k])} /> : String(of[k] ?? '—')}</dd>
        </div>
      ))}
    </dl>
  );
}

export function JailPage({ ctid }: { ctid: number }) {
  const jail = useLoad(() => api<ApiData['GET /api/jail/{ctid}']>('GET', `/jail/${ctid}`), [ctid]);
  const nodes = useLoad(memberNodes);
  const follow = useAfterTask(jail.reload);
  const j = jail.data;
  const hooks = (j?.hooks ?? {}) as Record<string, { enabled: boolean; script: string }>;
  return (
    <div>
      <h1>Jail {ctid}</h1>
      <ErrorLine error={jail.error} />
      {j ? <Facts of={j} keys={['name', 'state', 'nodeId', 'hostname', 'dataset']} /> : null}
      {j ? <PowerButtons kind="jail" id={ctid} name={String(j.name)} queued={follow} /> : null}
      <ActionForm
        label="Migrate"
        submit={async (f) => {
          const res = await call<ApiData['POST /api/jail/{ctid}/migrations']>(
            'POST',
            `/jail/${ctid}/migrations`,
            f.get('target') ? { targetNodeUuid: f.get('target') } : {},
          );
          follow(res.data.taskId);
          return res.message;
        }}
      >
        <label>
          Target node{' '}
          <select name="target">
            <option value="">the member with the fewest guests</option>
            {(nodes.data ?? []).map((n) => (
              <option key={n.id} value={n.id}>
                {n.name}
              </option>
            ))}
          </select>
        </label>
      </ActionForm>
      <ActionForm label="Set CPU cores" submit={(f) => send('PUT', `/jail/${ctid}/hardware/cpu`, { cores: Number(f.get('cores')) })}>
        <label>
          Cores <input name="cores" type="number" min={1} required />
        </label>
      </ActionForm>
      <ActionForm
        label="Save lifecycle hooks"
        submit={(f) =>
          send('PUT', `/jail/${ctid}/options/lifecycle-hooks`, {
            hooks: Object.fromEntries(HOOK_PHASES.map((p) => [p, { enabled: f.get(`${p}-on`) === 'on', script: String(f.get(`${p}-script`) ?? '') }])),
          })
        }
      >
        {HOOK_PHASES.map((p) => (
          <div key={p} class="hook">
            <label>
              <input type="checkbox" name={`${p}-on`} checked={hooks[p]?.enabled ?? false} /> {p}
            </label>
            <label>
              {p} script <textarea name={`${p}-script`} rows={2} value={hooks[p]?.script ?? ''} />
            </label>
          </div>
        ))}
      </ActionForm>
      <GuestSnapshots type="jail" id={ctid} />
    </div>
  );
}

export function VmPage({ rid }: { rid: number }) {
  const vm = useLoad(() => api<ApiData['GET /api/vm/{rid}']>('GET', `/vm/${rid}`), [rid]);
  const follow = useAfterTask(vm.reload);
  const v = vm.data;
  const options = v?.options;
  const cloudInit = options?.cloudInit;
  return (
    <div>
      <h1>VM {rid}</h1>
      <ErrorLine error={vm.error} />
      {v ? <Facts of={v} keys={['name', 'state', 'nodeId']} /> : null}
      {v ? <PowerButtons kind="vm" id={rid} name={String(v.name)} queued={follow} /> : null}
      <ActionForm label="Set guest agent" submit={(f) => send('PUT', `/vm/${rid}/options/qemu-guest-agent`, { enabled: f.get('enabled') === 'on' })}>
        <label>
          <input type="checkbox" name="enabled" checked={options?.qemuGuestAgent ?? false} /> QEMU guest agent channel
        </label>
      </ActionForm>
      <ActionForm label="Set shutdown wait" submit={(f) => send('PUT', `/vm/${rid}/options/shutdown-wait-time`, { waitTime: Number(f.get('waitTime')) })}>
        <label>
          Seconds <input name="waitTime" type="number" min={0} required value={options?.shutdownWaitTime ?? ''} />
        </label>
      </ActionForm>
      <ActionForm
        label="Save VNC"
        submit={(f) =>
          send('PUT', `/vm/${rid}/hardware/vnc`, {
            vncEnabled: f.get('vncEnabled') === 'on',
            vncResolution: String(f.get('vncResolution')),
            vncWait: f.get('vncWait') === 'on',
            ...(f.get('vncPassword') ? { vncPassword: String(f.get('vncPassword')) } : {}),
          })
        }
      >
        <label>
          <input type="checkbox" name="vncEnabled" checked={options?.vnc.enabled ?? false} /> VNC enabled
        </label>
        <label>
          Resolution <input name="vncResolution" required value={options?.vnc.resolution ?? '1024x768'} />
        </label>
        <label>
          <input type="checkbox" name="vncWait" checked={options?.vnc.wait ?? false} /> wait for a client
        </label>
        <label>
          New password (write-only) <input name="vncPassword" type="password" autocomplete="new-password" />
        </label>
      </ActionForm>
      <ActionForm
        label="Save cloud-init"
        submit={(f) =>
          send('PUT', `/vm/${rid}/options/cloud-init`, { data: f.get('data'), metadata: f.get('metadata'), networkConfig: f.get('networkConfig') })
        }
      >
        {/* what is saved now, so saving one field keeps the others (the API replaces all three) */}
        <label>
          user-data <textarea name="data" rows={3} value={cloudInit?.data ?? ''} />
        </label>
        <label>
          meta-data <textarea name="metadata" rows={2} value={cloudInit?.metadata ?? ''} />
        </label>
        <label>
          network-config <textarea name="networkConfig" rows={2} value={cloudInit?.networkConfig ?? ''} />
        </label>
      </ActionForm>
      <GuestSnapshots type="vm" id={rid} />
      <ActionForm label="Purge registration" submit={(f) => send('DELETE', `/vm/${rid}/registration?deletemacs=${f.get('deletemacs') === 'on'}`)}>
        <label>
          <input type="checkbox" name="deletemacs" checked /> also delete unused MAC objects
        </label>
      </ActionForm>
    </div>
  );
}
