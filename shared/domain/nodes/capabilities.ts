import type { Kysely, Transaction } from 'kysely';
import { conflict } from '#shared/errors/domain-errors';
import type { Database } from '#store/tables';
import { type CapabilityNeed, missingCapability } from '#shared/agent-api/capability-rules';
import type { HostCapabilities } from '#shared/agent-api/capabilities';

/** The capabilities a node's agent last reported (its inventory's `capabilities` section), if any. */
export async function nodeCapabilities(db: Kysely<Database> | Transaction<Database>, nodeId: string): Promise<HostCapabilities | undefined> {
  const row = await db.selectFrom('nodes').select('inventory').where('id', '=', nodeId).executeTakeFirst();
  const caps = (row?.inventory as { capabilities?: HostCapabilities } | undefined)?.capabilities;
  return caps && typeof caps === 'object' ? caps : undefined;
}

/**
 * Refuses (409 `capability_missing`) a request the node cannot carry out, naming the capability and what the
 * operator must do; passes when the node has it or has not reported its capabilities.
 */
export async function requireCapability(db: Kysely<Database> | Transaction<Database>, nodeId: string, need: CapabilityNeed): Promise<void> {
  const why = missingCapability(await nodeCapabilities(db, nodeId), need);
  if (why) throw conflict('capability_missing', why, null);
}
