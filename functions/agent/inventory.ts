import spec from '#spec/agent/inventory';
import { endpoint } from '#http/endpoint';
import { ok, type Reply } from '#http/envelope';
import { inTransaction } from '#store/tx';
import { auditAsRoutine } from '#store/audit-scope';
import { boundNode } from '#domain/nodes/agent-binding';
import { ValidationError } from '#shared/errors/domain-errors';
import { reportInventory } from '#domain/nodes/registration';
import type { Input, Output } from './inventory.schema.ts';

export const handler = endpoint<Input>(spec, async ({ body }, { db, principal }): Promise<Reply<Output>> => {
  const nodeId = boundNode(principal);
  // the schema's pattern admits month 67 or hour 89: only a real instant is an asOf
  if (body.asOf !== undefined && Number.isNaN(Date.parse(body.asOf)))
    throw new ValidationError([{ field: 'body.asOf', problem: 'must be a valid UTC timestamp (YYYY-MM-DDTHH:MM:SS[.fff]Z)' }]);
  const { node, changed } = await inTransaction(db, async (trx) => {
    const r = await reportInventory(trx, nodeId, body.inventory, body.asOf);
    // an inventory that changed nothing is a routine report: no audit row (a change keeps its row)
    auditAsRoutine(!r.changed);
    return r;
  });
  return ok('inventory_recorded', { nodeId, changed, inventoryAt: node.inventory_at ? new Date(node.inventory_at).toISOString() : null });
});
