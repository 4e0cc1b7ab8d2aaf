import { useState } from 'preact/hooks';
import { ActionForm, Field } from './action-form.tsx';
import { call } from './api.ts';
import type { NodeView } from './api-types.ts';

type SourceKind = 'dataset' | 'jail' | 'vm';
type TargetKind = 'node' | 'ssh';

const text = (f: FormData, k: string) => String(f.get(k) ?? '').trim();
/** A number field: omitted when empty (the API's default applies), else sent as typed for the API to judge. */
const num = (f: FormData, k: string) => (text(f, k) === '' ? undefined : Number(text(f, k)));

/** `POST /api/cluster/backups/jobs`'s body from the form: one source kind and one target kind, as chosen. */
function jobBody(f: FormData, source: SourceKind, target: TargetKind): Record<string, unknown> {
  return {
    name: text(f, 'name'),
    nodeId: text(f, 'nodeId'),
    source: source === 'dataset' ? { dataset: text(f, 'sourceDataset') } : { guestType: source, guestId: num(f, 'guestId') },
    target: {
      dataset: text(f, 'targetDataset'),
      ...(target === 'node'
        ? { nodeId: text(f, 'targetNodeId') }
        : { ssh: { user: text(f, 'sshUser'), host: text(f, 'sshHost'), port: num(f, 'sshPort'), hostKey: text(f, 'sshHostKey') } }),
    },
    schedule: text(f, 'schedule'),
    retention: num(f, 'retention'),
    enabled: f.get('enabled') === 'on',
  };
}

/**
 * The backup job create form: the runner node, a source (a dataset, or a jail's or VM's datasets), a target
 * (another member's dataset, or an SSH endpoint with its pinned host key), cron schedule, retention and
 * enabled. Each problem the API names shows next to its field.
 */
export function BackupJobForm(props: { nodes: NodeView[]; created: () => Promise<void> }) {
  const [source, setSource] = useState<SourceKind>('dataset');
  const [target, setTarget] = useState<TargetKind>('node');
  const nodeOptions = props.nodes.map((n) => (
    <option key={n.id} value={n.id}>
      {n.name || n.id}
    </option>
  ));
  return (
    <ActionForm
      label="Create backup job"
      submit={async (f) => {
        const res = await call('POST', '/cluster/backups/jobs', jobBody(f, source, target));
        await props.created();
        return res.message;
      }}
    >
      <Field label="Name" field="body.name" control={(a) => <input name="name" required {...a} />} />
      <Field
        label="Runner node"
        field="body.nodeId"
        control={(a) => (
          <select name="nodeId" required {...a}>
            {nodeOptions}
          </select>
        )}
      />
      <Field
        label="Source"
        field="body.source"
        control={(a) => (
          <select name="sourceKind" value={source} onChange={(e) => setSource(e.currentTarget.value as SourceKind)} {...a}>
            <option value="dataset">a dataset</option>
            <option value="jail">a jail's datasets</option>
            <option value="vm">a VM's datasets</option>
          </select>
        )}
      />
      {source === 'dataset' ? (
        <Field label="Source dataset" field="body.source.dataset" control={(a) => <input name="sourceDataset" required placeholder="zroot/data" {...a} />} />
      ) : (
        <Field
          label={source === 'jail' ? 'Jail id' : 'VM id'}
          field="body.source.guestId"
          control={(a) => <input name="guestId" type="number" min={1} required {...a} />}
        />
      )}
      <Field
        label="Target"
        field="body.target"
        control={(a) => (
          <select name="targetKind" value={target} onChange={(e) => setTarget(e.currentTarget.value as TargetKind)} {...a}>
            <option value="node">another member node</option>
            <option value="ssh">an SSH endpoint</option>
          </select>
        )}
      />
      {target === 'node' ? (
        <Field
          label="Target node"
          field="body.target.nodeId"
          control={(a) => (
            <select name="targetNodeId" required {...a}>
              {nodeOptions}
            </select>
          )}
        />
      ) : (
        <>
          <Field label="SSH user" field="body.target.ssh.user" control={(a) => <input name="sshUser" required {...a} />} />
          <Field label="SSH host" field="body.target.ssh.host" control={(a) => <input name="sshHost" required {...a} />} />
          <Field
            label="SSH port"
            field="body.target.ssh.port"
            control={(a) => <input name="sshPort" type="number" min={1} max={65535} placeholder="22" {...a} />}
          />
          <Field
            label="SSH host key"
            field="body.target.ssh.hostKey"
            control={(a) => <textarea name="sshHostKey" rows={2} required placeholder="ssh-ed25519 AAAA… (ssh-keyscan)" {...a} />}
          />
        </>
      )}
      <Field
        label="Target dataset"
        field="body.target.dataset"
        control={(a) => <input name="targetDataset" required placeholder="vault/backups/data" {...a} />}
      />
      <Field label="Schedule (cron)" field="body.schedule" control={(a) => <input name="schedule" required placeholder="0 3 * * *" {...a} />} />
      <Field label="Retention (snapshots)" field="body.retention" control={(a) => <input name="retention" type="number" min={1} defaultValue="7" {...a} />} />
      <Field label="Enabled" field="body.enabled" control={(a) => <input name="enabled" type="checkbox" defaultChecked {...a} />} />
    </ActionForm>
  );
}
