import { useEffect, useId, useState } from 'preact/hooks';
import { api, call } from './api.ts';
import { bytes } from './chart.ts';
import { ErrorLine, useAction, useLoad } from './load.tsx';
import { said } from './messages.ts';
import { canAct, poll, role } from './state.ts';
import { refreshTasks, tasks } from './tasks.tsx';
import { since, Time } from './time.tsx';
import type { Inventory, NodeView } from './api-types.ts';

type Pool = NonNullable<Inventory['pools']>[number];
type Caps = NonNullable<NodeView['capabilities']>;
/** One vdev at any depth (every level of the generated tree is assignable to it). */
interface Vdev {
  name: string;
  type: string;
  state: string;
  guid?: string;
  errors?: { read: number; write: number; cksum: number };
  note?: string;
  children?: Vdev[];
}

/** libvirt release from which the guest agent channel (virtio-console) works with bhyve */
const VIRTIO_CONSOLE_SINCE = [12, 4, 0];
const older = (v: string, than: number[]) => {
  const p = v.split('.').map((x) => Number.parseInt(x, 10) || 0);
  for (let i = 0; i < than.length; i++) if ((p[i] ?? 0) !== than[i]) return (p[i] ?? 0) < than[i];
  return false;
};

/** Each capability as yes/no, and what the operator does on the host when it is missing. */
function capabilityRows(c: Caps): Array<{ key: string; label: string; ok: boolean; detail: string; fix: string }> {
  const libvirt = c.libvirtVersion ?? null;
  return [
    {
      key: 'racct',
      label: 'Resource limits (RACCT)',
      ok: c.racct,
      detail: c.racct ? 'kern.racct.enable=1: jail memory limits work' : 'kern.racct.enable=0: jail memory limits are refused',
      fix: 'Set kern.racct.enable=1 in /boot/loader.conf and reboot the host.',
    },
    {
      key: 'zfs',
      label: 'OpenZFS',
      ok: Boolean(c.zfsVersion),
      detail: c.zfsVersion ?? 'zfs version answers nothing',
      fix: 'Load ZFS: sysrc -f /boot/loader.conf zfs_load=YES, then reboot (or kldload zfs).',
    },
    {
      key: 'libvirt',
      label: 'libvirt (VMs)',
      ok: libvirt !== null,
      detail: libvirt ?? 'not installed',
      fix: 'pkg install libvirt, then sysrc libvirtd_enable=YES && service libvirtd start.',
    },
    {
      key: 'guest-agent-channel',
      label: 'Guest agent channel',
      ok: libvirt !== null && !older(libvirt, VIRTIO_CONSOLE_SINCE),
      detail: libvirt === null ? 'needs libvirt' : `libvirt ${libvirt}`,
      fix: `Needs libvirt ${VIRTIO_CONSOLE_SINCE.join('.')} or newer: pkg upgrade libvirt.`,
    },
    {
      key: 'ctld',
      label: 'iSCSI (ctld) managed',
      ok: !c.ctldFlags?.trim(),
      detail: c.ctldFlags?.trim() ? `ctld_flags="${c.ctldFlags.trim()}"` : 'ctld reads /etc/ctl.conf',
      fix: 'Clear ctld_flags in /etc/rc.conf (sysrc ctld_flags="") so ctld reads the /etc/ctl.conf hostmgr writes.',
    },
  ];
}

/** Which capabilities a node has and lacks, by label (the overview's one-line summary). */
export function capabilitySummary(c: Caps): { yes: string[]; no: string[] } {
  const rows = capabilityRows(c);
  return { yes: rows.filter((r) => r.ok).map((r) => r.label), no: rows.filter((r) => !r.ok).map((r) => r.label) };
}

/** the host's boot time as the agent reports it (`kern.boottime`, Unix seconds), as an ISO instant */
const bootIso = (sec: number) => new Date(sec * 1000).toISOString();

const LEAF = new Set(['disk', 'file']);
const live = (status: string) => status === 'queued' || status === 'running';

/** The confirmation for one device: which free disk takes its place, asked before anything is queued. */
function ReplaceDevice(props: { pool: Pool; vdev: Vdev; disks: string[]; done: () => void }) {
  const act = useAction();
  const [asking, setAsking] = useState(false);
  const [target, setTarget] = useState(props.disks[0] ?? '');
  const [busy, setBusy] = useState(false);
  const id = useId();
  if (!props.disks.length) return <span class="muted">no free disk to replace it with</span>;
  if (!asking)
    return (
      <>
        <button type="button" class="small" onClick={() => setAsking(true)}>
          Replace {props.vdev.name}
        </button>
        <act.Answer />
      </>
    );
  return (
    <div class="confirm" role="alertdialog" aria-labelledby={`ask-${id}`}>
      <label>
        New disk{' '}
        <select name="new" value={target} onChange={(e) => setTarget(e.currentTarget.value)}>
          {props.disks.map((d) => (
            <option key={d}>{d}</option>
          ))}
        </select>
      </label>
      <p id={`ask-${id}`}>
        Replace {props.vdev.name} with {target} in pool {props.pool.name}? The pool resilvers onto {target}.
      </p>
      <button
        type="button"
        class="small"
        disabled={busy}
        onClick={async () => {
          setBusy(true);
          await act.run(async () => {
            const res = await call('POST', `/zfs/pools/${props.pool.guid}/replace-device`, { old: props.vdev.name, new: target });
            setAsking(false);
            await refreshTasks();
            props.done();
            return said(res.message);
          });
          setBusy(false);
        }}
      >
        Replace {props.vdev.name} with {target}
      </button>{' '}
      <button type="button" class="small secondary" onClick={() => setAsking(false)}>
        Keep {props.vdev.name}
      </button>
      <act.Answer />
    </div>
  );
}

function VdevRows(props: { pool: Pool; vdev: Vdev; depth: number; disks: string[]; done: () => void }) {
  const v = props.vdev;
  const bad = v.state !== 'ONLINE' && v.state !== '-' && v.state !== 'AVAIL' && v.state !== '';
  const errors = v.errors ? v.errors.read + v.errors.write + v.errors.cksum : 0;
  return (
    <>
      <tr data-vdev={v.name} data-state={v.state}>
        <td style={{ paddingLeft: `${0.5 + props.depth * 1.2}rem` }}>{v.name}</td>
        <td>{v.type}</td>
        <td>
          <span class={`badge ${bad ? 'bad' : 'ok'}`}>{v.state || '—'}</span>
        </td>
        <td class={errors ? 'error' : undefined} data-errors={errors}>
          {v.errors ? `${v.errors.read} / ${v.errors.write} / ${v.errors.cksum}` : '—'}
        </td>
        <td class="muted">{v.note ?? ''}</td>
        <td>{canAct() && LEAF.has(v.type) ? <ReplaceDevice pool={props.pool} vdev={v} disks={props.disks} done={props.done} /> : null}</td>
      </tr>
      {(v.children ?? []).map((c) => (
        <VdevRows key={`${c.name}-${c.guid ?? ''}`} pool={props.pool} vdev={c} depth={props.depth + 1} disks={props.disks} done={props.done} />
      ))}
    </>
  );
}

function PoolSection(props: { pool: Pool; disks: string[]; done: () => void }) {
  const p = props.pool;
  const scan = p.scan;
  // a replacement running on this pool shows its progress here as well as in the task panel
  const replacing = tasks.value.find((t) => t.kind === 'pool.replace-device' && t.resource === `pool:${p.guid}` && live(t.status));
  return (
    <section class="pool" aria-label={`Pool ${p.name}`} data-pool={p.name}>
      <h3>
        {p.name} <span class={`badge ${p.health === 'ONLINE' ? 'ok' : 'bad'}`}>{p.health}</span>
      </h3>
      <p class="muted">
        {bytes(p.allocated)} used of {bytes(p.size)}, {bytes(p.free)} free
      </p>
      {scan && scan.state !== 'none' ? (
        <p data-scan={scan.state}>
          {scan.function ?? 'scan'} {scan.state.replace('_', ' ')}
          {scan.percentDone !== null ? `: ${scan.percentDone.toFixed(1)} %` : ''}
          {scan.errors ? <span class="error"> with {scan.errors} errors</span> : null}{' '}
          {scan.state === 'in_progress' && scan.percentDone !== null ? (
            <progress max={100} value={scan.percentDone} aria-label={`${p.name} ${scan.function ?? 'scan'} progress`} />
          ) : null}
        </p>
      ) : null}
      {replacing ? (
        <p data-replacing={replacing.id}>
          Task #{replacing.id}: {replacing.phase ?? replacing.status}{' '}
          <progress max={100} value={replacing.progress ?? 0} aria-label={`${p.name} replacement progress`} />
        </p>
      ) : null}
      <div>
        <table class="vdevs" aria-label={`Pool ${p.name} devices`}>
          <thead>
            <tr>
              <th scope="col">Device</th>
              <th scope="col">Type</th>
              <th scope="col">State</th>
              <th scope="col">
                Errors <span class="muted">(read / write / cksum)</span>
              </th>
              <th scope="col">Note</th>
              <th scope="col">Action</th>
            </tr>
          </thead>
          <tbody>
            {p.vdevs.map((v) => (
              <VdevRows key={`${v.name}-${v.guid ?? ''}`} pool={p} vdev={v as Vdev} depth={0} disks={props.disks} done={props.done} />
            ))}
          </tbody>
        </table>
      </div>
    </section>
  );
}

/** One node: what it is and runs, what its host can do, and its pools with their devices. */
export function NodePage({ id }: { id: string }) {
  const node = useLoad(() => api<NodeView>('GET', `/cluster/nodes/${encodeURIComponent(id)}`), [id]);
  // while a task runs on this node its inventory changes (a resilver, a replaced device): read it more often
  const busy = tasks.value.some((t) => t.nodeId === id && live(t.status));
  useEffect(() => poll(node.reload, busy ? 2000 : 15_000), [id, busy]);
  const n = node.data;
  const inv: Inventory = n?.inventory ?? {};
  const disks = inv.disks ?? [];
  const guests = [
    ...(inv.jails ?? []).map((j) => ({ key: `jail-${j.ctid}`, href: `#/jail/${j.ctid}`, label: `${j.name} (${j.ctid})`, type: 'jail', state: j.state })),
    ...(inv.vms ?? []).map((v) => ({ key: `vm-${v.rid}`, href: `#/vm/${v.rid}`, label: `${v.name} (${v.rid})`, type: 'VM', state: v.state })),
  ];
  return (
    <div>
      <h1>Node {n?.name ?? id}</h1>
      <ErrorLine error={node.error} />
      {!n && !node.error ? <p class="muted">Loading…</p> : null}
      {n ? (
        <>
          <dl class="facts">
            <div>
              <dt>State</dt>
              <dd data-fact="online">
                <span class={`badge ${n.online ? 'ok' : 'bad'}`}>{n.online ? 'online' : 'offline'}</span> {n.status}
              </dd>
            </div>
            <div>
              <dt>Address</dt>
              <dd>{n.ip}</dd>
            </div>
            <div>
              <dt>Host</dt>
              <dd>{inv.hostname ?? '—'}</dd>
            </div>
            <div>
              <dt>CPUs</dt>
              <dd data-fact="cpus">{inv.cpus ?? '—'}</dd>
            </div>
            <div>
              <dt>Memory</dt>
              <dd data-fact="memory">{inv.memoryBytes === undefined ? '—' : bytes(inv.memoryBytes)}</dd>
            </div>
            <div>
              <dt>Host up</dt>
              <dd data-fact="uptime">
                {inv.bootTime === undefined ? (
                  '—'
                ) : (
                  <>
                    {since(bootIso(inv.bootTime))}, since <Time iso={bootIso(inv.bootTime)} />
                  </>
                )}
              </dd>
            </div>
            <div>
              <dt>Agent up</dt>
              <dd data-fact="agentUptime">
                {n.agentStartedAt ? (
                  <>
                    {since(n.agentStartedAt)}, since <Time iso={n.agentStartedAt} />
                  </>
                ) : (
                  '—'
                )}
              </dd>
            </div>
            <div>
              <dt>Last heartbeat</dt>
              <dd>
                <Time iso={n.lastSeenAt} />
              </dd>
            </div>
            <div>
              <dt>FreeBSD</dt>
              <dd data-fact="osrelease">{n.capabilities ? `${n.capabilities.osrelease} (${n.capabilities.osreldate})` : (inv.os ?? '—')}</dd>
            </div>
            <div>
              <dt>Agent version</dt>
              <dd data-fact="agentVersion">{n.agentVersion}</dd>
            </div>
          </dl>
          <h2>Capabilities</h2>
          {n.capabilities ? (
            <table class="capabilities">
              <thead>
                <tr>
                  <th scope="col">Capability</th>
                  <th scope="col">Available</th>
                  <th scope="col">What the host reports</th>
                  <th scope="col">When missing</th>
                </tr>
              </thead>
              <tbody>
                {capabilityRows(n.capabilities).map((c) => (
                  <tr key={c.key} data-capability={c.key} data-available={c.ok ? 'yes' : 'no'}>
                    <td>{c.label}</td>
                    <td>
                      <span class={`badge ${c.ok ? 'ok' : 'bad'}`}>{c.ok ? 'yes' : 'no'}</span>
                    </td>
                    <td class="mono">{c.detail}</td>
                    <td>{c.ok ? '' : c.fix}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : (
            <p class="muted">Not reported yet: the agent reports them with its next inventory.</p>
          )}
          <h2>Guests</h2>
          {guests.length ? (
            <ul class="guests">
              {guests.map((g) => (
                <li key={g.key} data-guest={g.key}>
                  <a href={g.href}>{g.label}</a> {g.type}, {g.state}
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted">No jails or VMs on this node.</p>
          )}
          <h2>Pools</h2>
          {!canAct() ? (
            <p class="muted" data-why="replace">
              Replacing a device needs an operator or admin token; you are signed in as {role.value}.
            </p>
          ) : null}
          {(inv.pools ?? []).length === 0 ? <p class="muted">No pools reported.</p> : null}
          {(inv.pools ?? []).map((p) => (
            <PoolSection key={p.guid} pool={p} disks={disks} done={node.reload} />
          ))}
          <h2>Free disks</h2>
          {disks.length ? (
            <ul class="disks" data-free-disks={disks.join(' ')}>
              {disks.map((d) => (
                <li key={d} class="mono">
                  {d}
                </li>
              ))}
            </ul>
          ) : (
            <p class="muted">No free disks: every disk is in a pool.</p>
          )}
        </>
      ) : null}
    </div>
  );
}
