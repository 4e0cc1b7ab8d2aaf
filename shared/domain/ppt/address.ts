import { invalid } from '#shared/errors/domain-errors';

/** Request schemas: a PCI domain and a `bus/slot/function` address, both decimal strings. */
export const pciDomainSchema = { type: 'string', minLength: 1, maxLength: 10, pattern: '^[0-9]+$' } as const;
export const pciDeviceIdSchema = { type: 'string', minLength: 5, maxLength: 16, pattern: '^[0-9]+/[0-9]+/[0-9]+$' } as const;

export interface PciAddress {
  bus: number;
  slot: number;
  function: number;
}

/** What a PCI address can hold: 8 bits of bus, 5 of slot (device), 3 of function. */
const LIMITS: [keyof PciAddress, number][] = [
  ['bus', 255],
  ['slot', 31],
  ['function', 7],
];

/**
 * Only PCI domain 0 is managed (bhyve's `pptdevs` names devices by bus/slot/function alone, in domain 0).
 * 400 pci_domain_unsupported for any other.
 */
export function checkPciDomain(domain: string): 0 {
  if (!/^[0-9]+$/.test(domain) || Number(domain) !== 0)
    throw invalid('pci_domain_unsupported', `body.domain: only PCI domain 0 can be passed through, not ${JSON.stringify(domain)}`);
  return 0;
}

/** `bus/slot/function` in decimal within the address limits, else 400 invalid_pci_address naming the part. */
export function parsePciDeviceId(deviceID: string): PciAddress & { deviceID: string } {
  const parts = /^([0-9]+)\/([0-9]+)\/([0-9]+)$/.exec(deviceID);
  if (!parts) throw invalid('invalid_pci_address', 'body.deviceID: must be bus/slot/function in decimal, e.g. 3/0/0');
  const addr = { bus: Number(parts[1]), slot: Number(parts[2]), function: Number(parts[3]) };
  for (const [part, max] of LIMITS) {
    if (addr[part] > max) throw invalid('invalid_pci_address', `body.deviceID: ${part} ${addr[part]} is out of range 0–${max}`);
  }
  // canonical form (no leading zeros): the one loader.conf gets and duplicates are compared by
  return { ...addr, deviceID: `${addr.bus}/${addr.slot}/${addr.function}` };
}
