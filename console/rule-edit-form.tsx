import { DELIVERY_CHANNELS } from '#domain/notifications/channel-fields';
import { ActionForm, Field, formProblem } from './action-form.tsx';
import { call } from './api.ts';
import type { NodeView, Rule } from './api-types.ts';

export const DELIVERY = ['ui', ...DELIVERY_CHANNELS] as const;

/** The channel switches of a rule form, as the API names them (`emailEnabled`, …). */
export const channelFlags = (f: FormData) => Object.fromEntries(DELIVERY.map((d) => [`${d}Enabled`, f.get(`${d}Enabled`) === 'on']));

/**
 * The rule's settings object from its JSON text. The list shows a webhook URL as "set", and "set" sent back
 * keeps the stored URL, so the text can go back unchanged.
 */
function configOf(text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text.trim() || '{}');
  } catch (e) {
    throw formProblem('body.config', `is not JSON (${(e as Error).message})`);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw formProblem('body.config', 'must be a JSON object');
  return v as Record<string, unknown>;
}

/**
 * Everything `PATCH /api/notifications/rules/{id}` accepts: the target (one of the event's, or any), the task
 * kind and node filters (empty: any), active, the channels and the settings (destination overrides such as
 * `to`, `ntfyTopic`, `ntfyPriority`, `webhookUrl`, and the event's own settings), as JSON.
 */
export function RuleEditForm(props: { rule: Rule; targets: Array<{ key: string; label: string }>; nodes: NodeView[]; saved: () => Promise<void> }) {
  const r = props.rule;
  const nodes = r.nodeId && !props.nodes.some((n) => n.id === r.nodeId) ? [...props.nodes, { id: r.nodeId, name: r.nodeId }] : props.nodes;
  return (
    <ActionForm
      label={`Save rule ${r.id}`}
      submit={async (f) => {
        const body = {
          targetKey: String(f.get('targetKey') || '*'),
          taskKind: String(f.get('taskKind') ?? '').trim() || null,
          nodeId: String(f.get('nodeId') ?? '') || null,
          active: f.get('active') === 'on',
          ...channelFlags(f),
          config: configOf(String(f.get('config') ?? '')),
        };
        const res = await call('PATCH', `/notifications/rules/${r.id}`, body);
        await props.saved();
        return res.message;
      }}
    >
      <Field
        label="Target"
        field="body.targetKey"
        control={(a) => (
          <select name="targetKey" {...a}>
            <option value="*">any</option>
            {props.targets.map((t) => (
              <option key={t.key} value={t.key} selected={t.key === r.targetKey}>
                {t.label}
              </option>
            ))}
          </select>
        )}
      />
      <Field label="Task kind" field="body.taskKind" control={(a) => <input name="taskKind" defaultValue={r.taskKind ?? ''} placeholder="any" {...a} />} />
      <Field
        label="Node"
        field="body.nodeId"
        control={(a) => (
          <select name="nodeId" {...a}>
            <option value="">any</option>
            {nodes.map((n) => (
              <option key={n.id} value={n.id} selected={n.id === r.nodeId}>
                {n.name || n.id}
              </option>
            ))}
          </select>
        )}
      />
      <label>
        <input type="checkbox" name="active" defaultChecked={r.active} /> active
      </label>
      {DELIVERY.map((d) => (
        <label key={d}>
          <input type="checkbox" name={`${d}Enabled`} defaultChecked={r[`${d}Enabled`]} /> {d}
        </label>
      ))}
      <Field
        label="Settings (JSON)"
        field="body.config"
        nested
        control={(a) => <textarea name="config" rows={3} cols={40} class="mono" defaultValue={r.config} spellcheck={false} {...a} />}
      />
    </ActionForm>
  );
}
