import spec from '#spec/agent/register';
import { endpoint } from '#http/endpoint';
import { created, ok, type Reply } from '#http/envelope';
import { unavailable } from '#shared/errors/domain-errors';
import { inTransaction } from '#store/tx';
import { ensureNodeQueue } from '#shared/queue/node-queue';
import { requireBoundTo } from '#domain/nodes/agent-binding';
import { checkNodeAddress, registerNode } from '#domain/nodes/registration';
import { toNodeView } from '#domain/nodes/view';
import { queueReapplyTasks } from '#domain/reapply';
import type { Input, Output } from './register.schema.ts';

export const handler = endpoint<Input>(spec, async ({ body }, { db, principal }): Promise<Reply<Output>> => {
  const nodeId = requireBoundTo(principal, body.id);
  checkNodeAddress(body.ip);
  // the queue first: a registration the agent cannot consume from is retried whole by the agent
  const queueUrl = await ensureNodeQueue(nodeId).catch((err: Error) => {
    throw unavailable('queue_unavailable', `the node queue could not be created: ${err.message}`);
  });
  const { node, createdNode, reapply } = await inTransaction(db, async (trx) => {
    const { node, created: createdNode } = await registerNode(trx, body);
    return { node, createdNode, reapply: await queueReapplyTasks(trx, nodeId) };
  });
  const data = {
    node: toNodeView({ ...node, online: true }),
    queueUrl,
    reapply: reapply.map((t) => ({ taskId: t.id, kind: t.kind, resource: t.resource, payload: t.payload })),
  };
  return createdNode ? created('node_registered', data) : ok('node_registered', data);
});
