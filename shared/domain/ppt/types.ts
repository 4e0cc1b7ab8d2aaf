/**
 * A PCI device as the agent reports it from `pciconf -lv`: the selector `<driver><unit>@pci<domain>:<bus>:
 * <slot>:<function>` split into its parts (`driver` is `none` for a device no driver claimed), the IDs of
 * the first line, and the vendor/device/class names of the `-v` lines when pciconf knows them.
 */
export interface PciDeviceInventory {
  /** e.g. `ppt0@pci0:3:0:0` */
  selector: string;
  /** driver name without the unit: `ppt`, `re`, `none` */
  driver: string;
  unit: number;
  domain: number;
  bus: number;
  slot: number;
  function: number;
  /** `0x020000` */
  class: string;
  vendorId: string;
  deviceId: string;
  vendor?: string;
  device?: string;
  /** `network`, `mass storage` … */
  className?: string;
  subclass?: string;
}
