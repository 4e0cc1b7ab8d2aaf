import spec from '#spec/nodes/get';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { getNodeView } from '#domain/nodes/view';
import { redactInventory } from '#domain/vms/secrets';
import type { Input } from './get.schema.ts';

// the inventory echoes the host's VM configuration: its secrets are redacted for every role
export const handler = endpoint<Input>(spec, async ({ path }, { db }) => {
  const node = await getNodeView(db, path.nodeId);
  return ok('node_found', { ...node, inventory: node.inventory && redactInventory(node.inventory) });
});
