import { nodeIdSchema } from '#domain/cluster/nodes';
import { datasetProblem, DATASET_MAX, DATASET_PATTERN, normalHostKey } from './rules.ts';
import type { BackupTarget } from './target.ts';

/**
 * A backup job's target as an operator (E-API) or a seed file writes it: another member node's dataset
 * (`nodeId`), or an SSH endpoint with its pinned host key (`ssh`) — exactly one.
 */
export const backupTargetSchema = {
  type: 'object',
  properties: {
    dataset: { type: 'string', minLength: 1, maxLength: DATASET_MAX, pattern: DATASET_PATTERN },
    nodeId: nodeIdSchema,
    ssh: {
      type: 'object',
      properties: {
        user: { type: 'string', minLength: 1, maxLength: 32, pattern: '^[a-z_][a-z0-9_-]*[$]?$' },
        host: { type: 'string', minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9.:_-]+$' },
        port: { type: 'integer', minimum: 1, maximum: 65535, default: 22 },
        hostKey: { type: 'string', minLength: 1, maxLength: 16384, description: '`<type> <base64>` as ssh-keyscan prints it' },
      },
      required: ['user', 'host', 'hostKey'],
      additionalProperties: false,
    },
  },
  required: ['dataset'],
  additionalProperties: false,
} as const;

export interface BackupTargetInput {
  dataset: string;
  nodeId?: string;
  ssh?: { user: string; host: string; port?: number; hostKey: string };
}

export type TargetProblem = { field: string; problem: string };

/**
 * The target's rules beyond its schema, each problem naming its field under `target`: a ZFS dataset name,
 * exactly one kind, a node other than the runner, a host key that parses. Without problems, `target` is the
 * target with its host key normalised (else null). (Whether a node target exists and is a member is the caller's: the store's question.)
 */
export function checkTargetInput(t: BackupTargetInput, runnerId: string): { target: BackupTarget | null; problems: TargetProblem[] } {
  const problems: TargetProblem[] = [];
  const dp = datasetProblem(t.dataset);
  if (dp) problems.push({ field: 'target.dataset', problem: dp });
  if ((t.nodeId === undefined) === (t.ssh === undefined))
    problems.push({ field: 'target', problem: 'must name either a member node (nodeId) or an SSH endpoint (ssh), exactly one' });
  const key = t.ssh ? normalHostKey(t.ssh.hostKey) : undefined;
  if (typeof key === 'object') problems.push({ field: 'target.ssh.hostKey', problem: key.problem });
  if (t.nodeId !== undefined && t.nodeId === runnerId) problems.push({ field: 'target.nodeId', problem: 'must be another node than the runner (nodeId)' });
  if (problems.length) return { target: null, problems };
  if (t.nodeId !== undefined) return { target: { kind: 'node', nodeId: t.nodeId, dataset: t.dataset }, problems };
  const s = t.ssh!;
  return { target: { kind: 'ssh', user: s.user, host: s.host, port: s.port ?? 22, hostKey: key as string, dataset: t.dataset }, problems };
}
