import { useState } from 'preact/hooks';
import { CHANNEL_FIELDS, DELIVERY_CHANNELS } from '#domain/notifications/channel-fields';
import { ActionForm } from './action-form.tsx';
import { api, call } from './api.ts';
import { ErrorLine, useAction, useLoad } from './load.tsx';
import { said } from './messages.ts';
import { canAct } from './state.ts';
import { memberNodes } from './nodes.ts';
import { channelFlags, DELIVERY, RuleEditForm } from './rule-edit-form.tsx';
import type { ApiData, Channel } from './api-types.ts';

/** Each channel's plain and write-only fields, as `PATCH /api/notifications/channels` takes them. */
const FIELDS: Record<string, { plain: readonly string[]; secret: readonly string[] }> = CHANNEL_FIELDS;
const CHANNELS: readonly string[] = DELIVERY_CHANNELS;

const send = async (method: string, path: string, body?: unknown) => (await call(method, path, body)).message;

/**
 * One channel's body from its form: a plain field is sent when filled in (or the checkbox, always), a secret only
 * when something was typed into it, since the API never gives a secret back and an omitted field is kept.
 */
function channelBody(name: string, f: FormData): Record<string, unknown> | undefined {
  const body: Record<string, unknown> = {};
  for (const k of [...FIELDS[name].plain, ...FIELDS[name].secret]) {
    if (k === 'secure') body[k] = f.get(k) === 'on';
    else {
      const v = String(f.get(k) ?? '').trim();
      if (v) body[k] = k === 'port' ? Number(v) : v;
    }
  }
  return Object.keys(body).length ? body : undefined;
}

export function Channels() {
  // the channels' settings are for operators and admins (GET answers a viewer 403): a viewer is told so instead
  if (!canAct())
    return (
      <section aria-labelledby="channels-h">
        <h2 id="channels-h">Channels</h2>
        <p class="muted" data-why="channels">
          Delivery channels (email, ntfy, webhook) are shown and set by operators and admins.
        </p>
      </section>
    );
  return <ChannelForms />;
}

function ChannelForms() {
  const list = useLoad(() => api<ApiData['GET /api/notifications/channels']>('GET', '/notifications/channels'));
  const byName = new Map<string, Channel>((list.data ?? []).map((c) => [c.channel, c]));
  return (
    <section aria-labelledby="channels-h">
      <h2 id="channels-h">Channels</h2>
      <ErrorLine error={list.error} />
      {CHANNELS.map((name) => {
        const s = byName.get(name)?.settings ?? {};
        return (
          <div key={name} data-channel={name} class="channel">
            <h3>{name}</h3>
            <dl class="facts">
              {FIELDS[name].secret.map((k) => (
                <div key={k}>
                  <dt>{k}</dt>
                  <dd data-secret={k}>{s[k] ? 'set' : 'not set'}</dd>
                </div>
              ))}
            </dl>
            {canAct() ? (
              <ActionForm
                label={`Save ${name} channel`}
                reset
                submit={async (f) => {
                  const body = channelBody(name, f);
                  if (!body) return 'nothing_to_change';
                  const message = await send('PATCH', '/notifications/channels', { [name]: body });
                  await list.reload();
                  return message;
                }}
              >
                {FIELDS[name].plain.map((k) =>
                  k === 'secure' ? (
                    <label key={k}>
                      <input type="checkbox" name={k} defaultChecked={s[k] === true} /> {name} {k} (TLS)
                    </label>
                  ) : (
                    <label key={k}>
                      {name} {k} <input name={k} type={k === 'port' ? 'number' : 'text'} defaultValue={s[k] == null ? '' : String(s[k])} />
                    </label>
                  ),
                )}
                {FIELDS[name].secret.map((k) => (
                  <label key={k}>
                    {name} {k} (write-only){' '}
                    <input name={k} type="password" autoComplete="new-password" placeholder={s[k] ? 'set: type to replace' : 'not set'} />
                  </label>
                ))}
              </ActionForm>
            ) : null}
          </div>
        );
      })}
    </section>
  );
}

/** Rules: the list with bulk delete (E23), a form to create one, and per rule a form that edits all of it. */
export function Rules() {
  const list = useLoad(() => api<ApiData['GET /api/notifications/rules']>('GET', '/notifications/rules'));
  const nodes = useLoad(memberNodes);
  const [selected, setSelected] = useState<Set<number>>(new Set());
  const [template, setTemplate] = useState('');
  const act = useAction();
  const rules = list.data?.rules ?? [];
  const templates = list.data?.templates ?? [];
  const targets = templates.find((t) => t.key === (template || templates[0]?.key))?.targets ?? [];
  const toggle = (id: number) =>
    setSelected((s) => {
      const n = new Set(s);
      if (!n.delete(id)) n.add(id);
      return n;
    });
  const remove = () =>
    act.run(async () => {
      if (selected.size === 0) return said('nothing_selected');
      const res = await call('POST', '/notifications/rules/bulk-delete', { ids: [...selected] });
      setSelected(new Set());
      await list.reload();
      return said(res.message);
    });
  return (
    <section aria-labelledby="rules-h">
      <h2 id="rules-h">Rules</h2>
      <ErrorLine error={list.error} />
      <act.Answer />
      <table class="rules">
        <thead>
          <tr>
            {canAct() ? <th scope="col">Select</th> : null}
            <th scope="col">Event</th>
            <th scope="col">Target</th>
            <th scope="col">Kind</th>
            <th scope="col">Channels</th>
            <th scope="col">State</th>
            {canAct() ? <th scope="col">Edit</th> : null}
          </tr>
        </thead>
        <tbody>
          {rules.map((r) => (
            <tr key={r.id} data-rule={r.id}>
              {canAct() ? (
                <td>
                  <input type="checkbox" aria-label={`Select rule ${r.id}`} checked={selected.has(r.id)} onChange={() => toggle(r.id)} />
                </td>
              ) : null}
              <td>{r.templateLabel}</td>
              <td>{r.targetLabel}</td>
              <td>{r.kind}</td>
              <td data-channels>{DELIVERY.filter((d) => r[`${d}Enabled`]).join(', ') || 'none'}</td>
              <td>
                {r.active ? 'active' : 'inactive'}
                {r.failing ? <span class="error"> failing</span> : null}
              </td>
              {canAct() ? (
                <td>
                  <details>
                    <summary>Edit rule {r.id}</summary>
                    <RuleEditForm
                      rule={r}
                      targets={templates.find((t) => t.key === r.templateKey)?.targets ?? []}
                      nodes={nodes.data ?? []}
                      saved={list.reload}
                    />
                  </details>
                </td>
              ) : null}
            </tr>
          ))}
        </tbody>
      </table>
      {canAct() ? (
        <>
          <button type="button" disabled={act.busy} onClick={remove}>
            Delete selected rules
          </button>
          <ActionForm
            label="Create rule"
            submit={async (f) => {
              const body: Record<string, unknown> = { templateKey: f.get('templateKey'), active: true, ...channelFlags(f) };
              if (f.get('targetKey')) body.targetKey = f.get('targetKey');
              if (f.get('taskKind')) body.taskKind = f.get('taskKind');
              const message = await send('POST', '/notifications/rules', body);
              await list.reload();
              return message;
            }}
          >
            <label>
              Event{' '}
              <select name="templateKey" value={template || templates[0]?.key} onChange={(e) => setTemplate(e.currentTarget.value)}>
                {templates.map((t) => (
                  <option key={t.key} value={t.key}>
                    {t.label}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Target{' '}
              <select name="targetKey">
                <option value="">any</option>
                {targets.map((t) => (
                  <option key={t.key} value={t.key}>
                    {t.label}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Task kind <input name="taskKind" placeholder="pool.replace-device" />
            </label>
            {DELIVERY.map((d) => (
              <label key={d}>
                <input type="checkbox" name={`${d}Enabled`} defaultChecked={d === 'ui'} /> {d}
              </label>
            ))}
          </ActionForm>
        </>
      ) : null}
    </section>
  );
}
