import spec from '#spec/cluster/backups-events-remote';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { requireNode } from '#domain/nodes/require-node';
import { listBackupEvents } from '#domain/backups/events';
import type { Input } from './backups-events-remote.schema.ts';

/** E12. Agents report every node's events to the store, so no request is forwarded to a node here. */
export const handler = endpoint<Input>(spec, async ({ query }, { db }) => {
  if (query.nodeId !== undefined) await requireNode(db, query.nodeId);
  const { page, size, jobId, nodeId, search } = query;
  const events = await listBackupEvents(db, { page, size, jobId, nodeId, search, sort: query['sort[0][field]'], dir: query['sort[0][dir]'] });
  return ok('backup_events_listed', events);
});
