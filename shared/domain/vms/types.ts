import type { VmOptions } from '#shared/agent-api/inventory';

/**
 * Virtual machines as the agent reports them and the store holds them, with their options (E5, E6, E17,
 * E19). A VM is a libvirt bhyve domain named by its RID (as the original system
 * names them) plus the agent's registration: a runtime directory with `vm.json` (display name, shutdown
 * wait time, cloud-init texts, MACs, datasets). A registration whose domain libvirt no longer defines is
 * an orphaned registration (state `orphaned`), the only thing E10 purges.
 */

// a VM as the agent reports it, with its options, is part of the agent wire (shared/agent-api/inventory.ts)
export { VM_STATES, type CloudInitOptions, type VmInventory, type VmOptions, type VmState, type VncOptions } from '#shared/agent-api/inventory';

/** `guests.config` of a VM row. */
export interface VmConfig {
  domain: string;
  options: VmOptions;
  macs: string[];
  datasets: string[];
}
