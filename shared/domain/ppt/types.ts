// a PCI device as the agent reports it (`pciconf -lv`) is part of the agent wire (shared/agent-api/inventory.ts)
export type { PciDeviceInventory } from '#shared/agent-api/inventory';
