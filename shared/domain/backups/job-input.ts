import { conflict, notFound, ValidationError } from '#shared/errors/domain-errors';
import type { BackupJobsTable, Db } from '#store/tables';
import type { Insertable } from 'kysely';
import { nodeIdSchema } from '#domain/cluster/nodes';
import { datasetProblem, DATASET_MAX, DATASET_PATTERN, RETENTION_MAX, RETENTION_MIN } from './rules.ts';
import { backupTargetSchema, checkTargetInput, type BackupTargetInput } from './target-input.ts';
import { nextRunAfter, SCHEDULE_MAX, scheduleProblem } from './schedule.ts';
import { targetColumns, targetEndpointLabel } from './target.ts';
import { requireNode } from '#domain/nodes/require-node';

export const JOB_NAME_MAX = 100;

const dataset = { type: 'string', minLength: 1, maxLength: DATASET_MAX, pattern: DATASET_PATTERN } as const;

/**
 * A backup job as an operator writes it (POST creates, PUT replaces): the runner node, a source (a dataset, or
 * a jail's or VM's datasets), a target (another member node's dataset, or an SSH endpoint with its pinned
 * host key), a cron schedule, retention (job snapshots kept per side) and whether it runs.
 */
export const backupJobBody = {
  type: 'object',
  properties: {
    name: { type: 'string', minLength: 1, maxLength: JOB_NAME_MAX, pattern: '\\S' },
    nodeId: nodeIdSchema,
    source: {
      type: 'object',
      properties: {
        dataset,
        guestType: { type: 'string', enum: ['jail', 'vm'] },
        guestId: { type: 'integer', minimum: 1, maximum: 9999 },
      },
      additionalProperties: false,
    },
    target: backupTargetSchema,
    schedule: { type: 'string', minLength: 1, maxLength: SCHEDULE_MAX },
    retention: { type: 'integer', minimum: RETENTION_MIN, maximum: RETENTION_MAX, default: 7 },
    enabled: { type: 'boolean', default: true },
  },
  required: ['name', 'nodeId', 'source', 'target', 'schedule'],
  additionalProperties: false,
} as const;

export interface BackupJobInput {
  name: string;
  nodeId: string;
  source: { dataset?: string; guestType?: 'jail' | 'vm'; guestId?: number };
  target: BackupTargetInput;
  schedule: string;
  retention?: number;
  enabled?: boolean;
}

type JobColumns = Omit<Insertable<BackupJobsTable>, 'id' | 'created_at' | 'updated_at'>;

async function memberNode(trx: Db, id: string, field: string, what: string) {
  const n = await requireNode(trx, id, { field });
  if (n.status !== 'member') throw conflict('node_not_member', `${field}: cluster node ${id} is ${n.status}; ${what} must be a cluster member`);
  return n;
}

/**
 * Checks a job against the rules and the store and returns its columns: each problem of the input's shape is
 * a 400 naming the field (exactly one source, exactly one target kind, dataset names, host key, schedule);
 * the runner and a node target must be members (404 / 409), the guest must exist (404).
 */
export async function jobColumns(trx: Db, input: BackupJobInput, now = new Date()): Promise<JobColumns> {
  const problems: { field: string; problem: string }[] = [];
  const { source, target } = input;
  const hasGuest = source.guestType !== undefined || source.guestId !== undefined;
  if (source.dataset !== undefined && hasGuest)
    problems.push({ field: 'body.source', problem: 'must name either a dataset or a guest (guestType + guestId), not both' });
  else if (source.dataset === undefined && !hasGuest) problems.push({ field: 'body.source', problem: 'must name a dataset or a guest (guestType + guestId)' });
  else if (hasGuest && (source.guestType === undefined || source.guestId === undefined))
    problems.push({ field: 'body.source', problem: 'a guest source needs both guestType and guestId' });
  const sourceProblem = source.dataset === undefined ? undefined : datasetProblem(source.dataset);
  if (sourceProblem) problems.push({ field: 'body.source.dataset', problem: sourceProblem });
  const checked = checkTargetInput(target, input.nodeId);
  problems.push(...checked.problems.map((p) => ({ field: `body.${p.field}`, problem: p.problem })));
  const sp = scheduleProblem(input.schedule);
  if (sp) problems.push({ field: 'body.schedule', problem: sp });
  if (!checked.target || problems.length) throw new ValidationError(problems);

  const runner = await memberNode(trx, input.nodeId, 'body.nodeId', 'the runner');
  const t = checked.target;
  const node = t.kind === 'node' ? await memberNode(trx, t.nodeId, 'body.target.nodeId', 'a target node') : null;
  const label = targetEndpointLabel(t, node ? node.name || node.id : undefined);
  let sourceLabel = source.dataset ?? '';
  if (hasGuest) {
    const g = await trx.selectFrom('guests').select(['id', 'name']).where('id', '=', source.guestId!).where('type', '=', source.guestType!).executeTakeFirst();
    if (!g)
      throw notFound(source.guestType === 'jail' ? 'jail_not_found' : 'vm_not_found', `body.source: ${source.guestType} ${source.guestId} does not exist`);
    sourceLabel = `${source.guestType}:${g.id}${g.name ? ` (${g.name})` : ''}`;
  }
  const enabled = input.enabled ?? true;
  return {
    name: input.name.trim(),
    node_id: runner.id,
    mode: 'incremental',
    source_dataset: sourceLabel,
    guest_type: hasGuest ? source.guestType! : null,
    guest_id: hasGuest ? source.guestId! : null,
    target_endpoint: label,
    ...targetColumns(t),
    schedule: input.schedule.trim(),
    retention: input.retention ?? 7,
    enabled,
    next_run_at: enabled ? nextRunAfter(input.schedule, now) : null,
  };
}
