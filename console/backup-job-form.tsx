import { useState } from 'preact/hooks';
import { ActionForm, Field } from './action-form.tsx';
import { call } from './api.ts';
import type { ApiBody, ApiData, BackupJob, NodeView } from './api-types.ts';

type SourceKind = 'dataset' | 'jail' | 'vm';
type TargetKind = 'node' | 'ssh';
type JobBody = ApiBody['POST /api/cluster/backups/jobs'];

const text = (f: FormData, k: string) => String(f.get(k) ?? '').trim();
/** A number field: omitted when empty (the API's default applies), else sent as typed for the API to judge. */
const num = (f: FormData, k: string) => (text(f, k) === '' ? undefined : Number(text(f, k)));

/** The job's body (`POST` creates, `PUT /{id}` replaces) from the form: one source kind and one target kind, as chosen. */
function jobBody(f: FormData, source: SourceKind, target: TargetKind): JobBody {
  return {
    name: text(f, 'name'),
    nodeId: text(f, 'nodeId'),
    source: source === 'dataset' ? { dataset: text(f, 'sourceDataset') } : { guestType: source, guestId: num(f, 'guestId') as number },
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
 * The backup job form, to create a job or (given `job`) edit one: the runner node, a source (a dataset, or a
 * jail's or VM's datasets), a target (another member's dataset, or an SSH endpoint with its pinned host key),
 * cron schedule, retention and enabled. The target node offers only members other than the runner (the API
 * refuses the runner itself), so its default is one the API takes. Each problem the API names shows next to its
 * field.
 */
export function BackupJobForm(props: { nodes: NodeView[]; job?: BackupJob; saved: () => Promise<void> }) {
  const job = props.job;
  const [source, setSource] = useState<SourceKind>(job?.guest ? job.guest.type : 'dataset');
  const [target, setTarget] = useState<TargetKind>(job?.target?.kind ?? 'node');
  const [runner, setRunner] = useState<string | undefined>(job?.nodeId);
  const runnerId = runner ?? props.nodes[0]?.id;
  const others = props.nodes.filter((n) => n.id !== runnerId);
  const option = (n: NodeView) => (
    <option key={n.id} value={n.id}>
      {n.name || n.id}
    </option>
  );
  const label = job ? `Save backup job ${job.name}` : 'Create backup job';
  const ssh = job?.target?.kind === 'ssh' ? job.target : undefined;
  return (
    <ActionForm
      label={label}
      submit={async (f) => {
        const body = jobBody(f, source, target);
        const res = job
          ? await call<ApiData['PUT /api/cluster/backups/jobs/{id}']>('PUT', `/cluster/backups/jobs/${job.id}`, body)
          : await call<ApiData['POST /api/cluster/backups/jobs']>('POST', '/cluster/backups/jobs', body);
        await props.saved();
        return res.message;
      }}
    >
      <Field label="Name" field="body.name" control={(a) => <input name="name" required defaultValue={job?.name} {...a} />} />
      <Field
        label="Runner node"
        field="body.nodeId"
        control={(a) => (
          <select name="nodeId" required value={runnerId} onChange={(e) => setRunner(e.currentTarget.value)} {...a}>
            {props.nodes.map(option)}
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
        <Field
          label="Source dataset"
          field="body.source.dataset"
          control={(a) => <input name="sourceDataset" required placeholder="zroot/data" defaultValue={job?.guest ? undefined : job?.sourceDataset} {...a} />}
        />
      ) : (
        <Field
          label={source === 'jail' ? 'Jail id' : 'VM id'}
          field="body.source.guestId"
          control={(a) => <input name="guestId" type="number" min={1} required defaultValue={job?.guest ? String(job.guest.id) : undefined} {...a} />}
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
            <select name="targetNodeId" required defaultValue={job?.target?.kind === 'node' ? job.target.nodeId : undefined} {...a}>
              {others.map(option)}
            </select>
          )}
        />
      ) : (
        <>
          <Field label="SSH user" field="body.target.ssh.user" control={(a) => <input name="sshUser" required defaultValue={ssh?.user} {...a} />} />
          <Field label="SSH host" field="body.target.ssh.host" control={(a) => <input name="sshHost" required defaultValue={ssh?.host} {...a} />} />
          <Field
            label="SSH port"
            field="body.target.ssh.port"
            control={(a) => (
              <input name="sshPort" type="number" min={1} max={65535} placeholder="22" defaultValue={ssh ? String(ssh.port) : undefined} {...a} />
            )}
          />
          <Field
            label="SSH host key"
            field="body.target.ssh.hostKey"
            control={(a) => <textarea name="sshHostKey" rows={2} required placeholder="ssh-ed25519 AAAA… (ssh-keyscan)" defaultValue={ssh?.hostKey} {...a} />}
          />
        </>
      )}
      {target === 'node' && others.length === 0 && props.nodes.length > 0 ? (
        <p class="muted">No other member node to send to: choose an SSH endpoint, or join another node first.</p>
      ) : null}
      <Field
        label="Target dataset"
        field="body.target.dataset"
        control={(a) => <input name="targetDataset" required placeholder="vault/backups/data" defaultValue={job?.target?.dataset} {...a} />}
      />
      <Field
        label="Schedule (cron)"
        field="body.schedule"
        control={(a) => <input name="schedule" required placeholder="0 3 * * *" defaultValue={job?.schedule} {...a} />}
      />
      <Field
        label="Retention (snapshots)"
        field="body.retention"
        control={(a) => <input name="retention" type="number" min={1} defaultValue={String(job?.retention ?? 7)} {...a} />}
      />
      <Field label="Enabled" field="body.enabled" control={(a) => <input name="enabled" type="checkbox" defaultChecked={job?.enabled ?? true} {...a} />} />
    </ActionForm>
  );
}
