/**
 * The device addresses libvirt's bhyve driver writes into a definition when it is defined, and the address
 * check every define makes (libvirt 11.x/12.x):
 * - a SATA disk without an address gets a drive address from its target name (bhyve_domain.c
 *   bhyveDomainDiskDefAssignAddress → virDiskNameParse: `hda`/`sda`/`vda` are index 0, `hdb` 1, … `hdz` 25,
 *   `hdaa` 26; with bhyve's 32-slot AHCI (BHYVE_CAP_AHCI32SLOT, every supported FreeBSD) controller = index / 32,
 *   unit = index % 32, bus 0, target 0). The bus letters do not matter: `hda` and `sda` share unit 0;
 * - two disks of one bus with one drive address are refused (conf/domain_validate.c
 *   virDomainDefDuplicateDriveAddressesValidate, VIR_ERR_CONFIG_UNSUPPORTED);
 * - PCI slots (bhyve_device.c bhyveAssignDevicePCISlots): slots given in the XML are reserved first, slot 1 is
 *   kept for the LPC bridge, then the next free slot from 1 up goes to each device wanting one, in the order
 *   SATA/ISA/xHCI controllers, interfaces, virtio disks, videos, sounds, filesystems, RNGs.
 */
type XNode = Record<string, unknown>;
type Attrs = Record<string, string>;

const tagOf = (n: XNode) => Object.keys(n).find((k) => k !== ':@' && k !== '#text');
const kidsOf = (n: XNode) => ((n[tagOf(n)!] as XNode[]) ??= []);
const attrsOf = (n: XNode): Attrs => (n[':@'] as Attrs | undefined) ?? {};
const addressOf = (n: XNode) => kidsOf(n).find((k) => tagOf(k) === 'address');

export class AddressError extends Error {}

/** virDiskNameParse's index of a disk target name (`sdb` → 1, `hdaa` → 26), or null for a name it does not know. */
export function diskNameIndex(name: string): number | null {
  const m = /^(?:fd|hd|vd|sd|xvd|ubd)([a-z]+)\d*$/.exec(name);
  if (!m) return null;
  let idx = 0;
  for (const c of m[1]) idx = idx * 26 + (c.charCodeAt(0) - 96);
  return idx - 1;
}

const hex = (n: number, width: number) => `0x${n.toString(16).padStart(width, '0')}`;
const pciAddress = (slot: number): XNode => ({ address: [], ':@': { type: 'pci', domain: '0x0000', bus: '0x00', slot: hex(slot, 2), function: '0x0' } });

function assignDriveAddresses(devices: XNode[]): void {
  for (const disk of devices.filter((d) => tagOf(d) === 'disk')) {
    if (addressOf(disk)) continue;
    const target = kidsOf(disk).find((k) => tagOf(k) === 'target');
    const dev = target ? attrsOf(target).dev : undefined;
    const bus = target ? attrsOf(target).bus : undefined;
    const idx = dev ? diskNameIndex(dev) : null;
    if (idx === null) throw new AddressError(`XML error: Unknown disk name '${dev ?? ''}' and no address specified`);
    if (bus !== 'sata') continue;
    kidsOf(disk).push({
      address: [],
      ':@': { type: 'drive', controller: String(Math.floor(idx / 32)), bus: '0', target: '0', unit: String(idx % 32) },
    });
  }
}

function checkDuplicateDriveAddresses(devices: XNode[]): void {
  const disks = devices.filter((d) => tagOf(d) === 'disk');
  const key = (disk: XNode) => {
    const a = addressOf(disk);
    if (!a || attrsOf(a).type !== 'drive') return null;
    const x = attrsOf(a);
    return { controller: x.controller ?? '0', bus: x.bus ?? '0', target: x.target ?? '0', unit: x.unit ?? '0' };
  };
  const busOf = (disk: XNode) => attrsOf(kidsOf(disk).find((k) => tagOf(k) === 'target') ?? {}).bus;
  const devOf = (disk: XNode) => attrsOf(kidsOf(disk).find((k) => tagOf(k) === 'target') ?? {}).dev;
  for (let i = 0; i < disks.length; i++) {
    const a = key(disks[i]);
    if (!a) continue;
    for (let j = i + 1; j < disks.length; j++) {
      const b = key(disks[j]);
      if (!b || busOf(disks[i]) !== busOf(disks[j])) continue;
      if (a.controller === b.controller && a.bus === b.bus && a.target === b.target && a.unit === b.unit)
        throw new AddressError(
          `unsupported configuration: Found duplicate drive address for disk with target name '${devOf(disks[i])}' controller='${a.controller}' bus='${a.bus}' target='${a.target}' unit='${a.unit}'`,
        );
    }
  }
}

const wantsPci = (d: XNode): boolean => {
  const tag = tagOf(d);
  const a = attrsOf(d);
  if (tag === 'controller') return a.type === 'sata' || a.type === 'isa' || (a.type === 'usb' && a.model === 'nec-xhci');
  if (tag === 'disk') return attrsOf(kidsOf(d).find((k) => tagOf(k) === 'target') ?? {}).bus === 'virtio';
  return tag === 'interface' || tag === 'video' || tag === 'sound' || tag === 'filesystem' || tag === 'rng';
};
const PCI_ORDER = ['controller', 'interface', 'disk', 'video', 'sound', 'filesystem', 'rng'];

function assignPciSlots(devices: XNode[]): void {
  const used = new Set<number>();
  for (const d of devices) {
    const a = addressOf(d);
    if (a && attrsOf(a).type === 'pci') used.add(Number.parseInt(attrsOf(a).slot ?? '0', 16));
  }
  // slot 1: the LPC bridge's, unless the XML gave it to a device
  if (!used.has(1)) {
    used.add(1);
    const isa = devices.find((d) => tagOf(d) === 'controller' && attrsOf(d).type === 'isa' && !addressOf(d));
    if (isa) kidsOf(isa).push(pciAddress(1));
  }
  for (const tag of PCI_ORDER) {
    for (const d of devices.filter((x) => tagOf(x) === tag && wantsPci(x) && !addressOf(x))) {
      let slot = 1;
      while (used.has(slot)) slot++;
      if (slot > 31) throw new AddressError('internal error: No more available PCI slots');
      used.add(slot);
      kidsOf(d).push(pciAddress(slot));
    }
  }
}

/** Gives the devices of a `<domain>`'s children the addresses libvirt would, then validates drive addresses. */
export function assignAddresses(domainKids: XNode[]): void {
  const devicesNode = domainKids.find((k) => tagOf(k) === 'devices');
  if (!devicesNode) return;
  const devices = kidsOf(devicesNode);
  assignDriveAddresses(devices);
  checkDuplicateDriveAddresses(devices);
  assignPciSlots(devices);
}
