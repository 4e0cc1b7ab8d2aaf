// host users and groups as the agent reports them are part of the agent wire (shared/agent-api/inventory.ts)
export type { HostGroupInventory, HostUserInventory } from '#shared/agent-api/inventory';

/** E1 and E2's record. */
export interface GroupView {
  id: number;
  name: string;
}
