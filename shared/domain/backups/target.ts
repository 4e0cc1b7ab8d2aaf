import type { Selectable } from 'kysely';
import type { BackupJobsTable } from '#store/tables';
import type { BackupPeer } from '#shared/agent-api/task-kinds';
import { hostKeyFingerprint } from './rules.ts';

/** Where a backup job's snapshots are received: another member node's dataset, or an SSH endpoint. */
export type BackupTarget =
  | { kind: 'node'; nodeId: string; dataset: string }
  | { kind: 'ssh'; user: string; host: string; port: number; hostKey: string; dataset: string };

type TargetColumns = Pick<
  Selectable<BackupJobsTable>,
  'target_node_id' | 'target_dataset' | 'target_ssh_user' | 'target_ssh_host' | 'target_ssh_port' | 'target_ssh_host_key'
>;

/** The job row's target; null for a job without one (the seed's display-only jobs of older stores). */
export function targetOf(row: TargetColumns): BackupTarget | null {
  if (!row.target_dataset) return null;
  if (row.target_node_id) return { kind: 'node', nodeId: row.target_node_id, dataset: row.target_dataset };
  if (row.target_ssh_host && row.target_ssh_user && row.target_ssh_host_key) {
    return {
      kind: 'ssh',
      user: row.target_ssh_user,
      host: row.target_ssh_host,
      port: row.target_ssh_port ?? 22,
      hostKey: row.target_ssh_host_key,
      dataset: row.target_dataset,
    };
  }
  return null;
}

/** The target as a task reaches it: an SSH endpoint's pinned key travels as its fingerprint. */
export function peerOf(t: BackupTarget): BackupPeer {
  return t.kind === 'node'
    ? { kind: 'node', nodeId: t.nodeId, dataset: t.dataset }
    : { kind: 'ssh', user: t.user, host: t.host, port: t.port, dataset: t.dataset, hostKeys: [hostKeyFingerprint(t.hostKey)] };
}

/** The columns that store a target. */
export function targetColumns(t: BackupTarget): TargetColumns {
  return t.kind === 'node'
    ? { target_node_id: t.nodeId, target_dataset: t.dataset, target_ssh_user: null, target_ssh_host: null, target_ssh_port: null, target_ssh_host_key: null }
    : {
        target_node_id: null,
        target_dataset: t.dataset,
        target_ssh_user: t.user,
        target_ssh_host: t.host,
        target_ssh_port: t.port,
        target_ssh_host_key: t.hostKey,
      };
}

/**
 * The label E12 shows and searches (`targetEndpoint`): `user@host:dataset` (`user@[host]:port:dataset` off port
 * 22, brackets for IPv6) for SSH, `<node name>:dataset` for a member node.
 */
export function targetEndpointLabel(t: BackupTarget, nodeName?: string): string {
  if (t.kind === 'node') return `${nodeName ?? t.nodeId}:${t.dataset}`;
  const host = t.host.includes(':') ? `[${t.host}]` : t.host;
  return t.port === 22 ? `${t.user}@${host}:${t.dataset}` : `${t.user}@${host}:${t.port}:${t.dataset}`;
}
