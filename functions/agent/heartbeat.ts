import spec from '#spec/agent/heartbeat';
import { log } from '#shared/log/logger';
import { endpoint } from '#http/endpoint';
import { ok, type Reply } from '#http/envelope';
import { boundNode } from '#domain/nodes/agent-binding';
import { touchNode } from '#domain/nodes/touch';
import { sweepTasks } from '#domain/task-transitions';
import { cancelRequestedTasks } from '#shared/jobs/cancel';
import type { Input, Output } from './heartbeat.schema.ts';

export const handler = endpoint<Input>(spec, async (_input, { db, principal }): Promise<Reply<Output>> => {
  const node = await touchNode(db, boundNode(principal));
  // the agent's own heartbeat drives the re-sending of its node's queued tasks; a sweep problem must not
  // cost the node its online status, so it is only logged
  const swept = await sweepTasks(db, { nodeId: node.id }).catch((err: Error) => {
    log.warn('heartbeat sweep failed', { nodeId: node.id, cause: err.message });
    return null;
  });
  const cancel = await cancelRequestedTasks(db, node.id);
  return ok('heartbeat_recorded', { nodeId: node.id, lastSeenAt: new Date(node.last_seen_at!).toISOString(), resent: swept?.sent ?? [], cancel });
});
