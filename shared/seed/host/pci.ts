/**
 * The seed's PCI devices of a simulated host (`host.pciDevices`), as `pciconf -lv` lists them: the driver
 * that claimed each one (`ppt` for passthrough, `none` for none) with its unit, the address, the IDs of
 * the first line and the names of the `-v` lines.
 */
const hex = (digits: number) => ({ type: 'string', pattern: `^0x[0-9a-f]{${digits}}$` }) as const;

export const simPciDeviceSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['driver', 'unit', 'bus', 'slot', 'function', 'class', 'vendorId', 'deviceId'],
  properties: {
    /** without the unit, so it cannot end in a digit: `ppt`, `re`, `sdhci_pci`, `none` */
    driver: { type: 'string', minLength: 1, maxLength: 32, pattern: '^[A-Za-z_]([A-Za-z0-9_]*[A-Za-z_])?$' },
    unit: { type: 'integer', minimum: 0, maximum: 999 },
    /** default 0 */
    domain: { type: 'integer', minimum: 0, maximum: 65535 },
    bus: { type: 'integer', minimum: 0, maximum: 255 },
    slot: { type: 'integer', minimum: 0, maximum: 31 },
    function: { type: 'integer', minimum: 0, maximum: 7 },
    /** class, subclass and programming interface, `0x020000` */
    class: hex(6),
    /** default 0x00 */
    rev: hex(2),
    /** default 0x00 (0x01 for PCI bridges) */
    hdr: hex(2),
    vendorId: hex(4),
    deviceId: hex(4),
    /** default: vendorId / deviceId */
    subvendorId: hex(4),
    subdeviceId: hex(4),
    /** the `-v` names; each line is left out when absent, as pciconf does for IDs it does not know */
    vendor: { type: 'string', maxLength: 128 },
    device: { type: 'string', maxLength: 128 },
    className: { type: 'string', maxLength: 64 },
    subclass: { type: 'string', maxLength: 64 },
  },
} as const;
