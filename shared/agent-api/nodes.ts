import type { HostCapabilities } from './capabilities.ts';
import type { InventoryView } from './inventory.ts';

/** A node as the API shows it; `online` = heard from within three heartbeat intervals (shared/store/presence.ts). */
export interface NodeView {
  id: string;
  name: string;
  ip: string;
  status: string;
  online: boolean;
  lastSeenAt: string | null;
  heartbeatIntervalS: number;
  agentVersion: string;
  agentStartedAt: string | null;
  registeredAt: string | null;
  inventoryAt: string | null;
  createdAt: string;
  /**
   * what the host can do as its agent last reported it (release, __FreeBSD_version, RACCT, OpenZFS and libvirt
   * versions); null until an agent that reports them has sent an inventory
   */
  capabilities: HostCapabilities | null;
  /** only in the single-node read */
  inventory?: InventoryView;
}
