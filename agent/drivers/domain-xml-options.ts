import { DEFAULT_VNC_BIND, DEFAULT_VNC_RESOLUTION } from '#shared/agent-api/vm-defaults';
import type { VncOptions } from '#shared/agent-api/inventory';
import { type DomainXml, GUEST_AGENT_CHANNEL, attrsOf, childrenOf, el, find, findAll, is, removeAll, tagOf, type XNode } from './domain-xml.ts';
import { readVncWait } from './vnc-wait.ts';

/**
 * Reading and writing the VM options that live in the libvirt bhyve domain XML (E5/E17/E19):
 * - guest agent: a virtio-serial controller + `<channel type='unix'>` targeting `org.qemu.guest_agent.0`
 *   (libvirt's bhyve driver turns it into `-s N:0,virtio-console,org.qemu.guest_agent.0=<socket>`);
 * - VNC: `<graphics type='vnc'>` with a `<listen type='address'>` + a GOP `<video>` with its resolution
 *   (bhyve_command.c bhyveBuildGraphicsArgStr: `fbuf,tcp=<bind>:<port>[,password=],w=,h=`); the port must lie in
 *   5900–65535 and the domain must boot with a UEFI loader, or `virsh start` fails. bhyve's `wait` is in
 *   vnc-wait.ts (libvirt has no graphics setting for it);
 * - cloud-init: the NoCloud seed ISO attached as a read-only SATA cdrom.
 */

const isGuestAgentChannel = (n: XNode) => tagOf(n) === 'channel' && childrenOf(n).some((c) => tagOf(c) === 'target' && attrsOf(c).name === GUEST_AGENT_CHANNEL);

export function readGuestAgent(d: DomainXml): boolean {
  return childrenOf(d.devices).some(isGuestAgentChannel);
}

export function setGuestAgent(d: DomainXml, enabled: boolean, socketPath: string): void {
  const devices = d.devices;
  removeAll(devices, isGuestAgentChannel);
  if (enabled) {
    if (!find(devices, is('controller', { type: 'virtio-serial' }))) {
      childrenOf(devices).push(el('controller', { type: 'virtio-serial', index: '0', ports: '16' }));
    }
    childrenOf(devices).push(
      el('channel', { type: 'unix' }, [el('source', { mode: 'bind', path: socketPath }), el('target', { type: 'virtio', name: GUEST_AGENT_CHANNEL })]),
    );
  } else if (!findAll(devices, is('channel')).length) {
    // the controller only served channels; none is left
    removeAll(devices, is('controller', { type: 'virtio-serial' }));
  }
}

/** VNC as the domain has it (`auth` = a password is set). */
export function readVnc(d: DomainXml): VncOptions {
  const g = find(d.devices, is('graphics', { type: 'vnc' }));
  const video = find(d.devices, is('video'));
  const model = video && find(video, is('model'));
  const res = model && find(model, is('resolution'));
  const resolution = res ? `${attrsOf(res).x}x${attrsOf(res).y}` : DEFAULT_VNC_RESOLUTION;
  if (!g) return { enabled: false, bind: DEFAULT_VNC_BIND, port: null, resolution, wait: false, auth: false };
  const a = attrsOf(g);
  const listen = find(g, is('listen', { type: 'address' }));
  const port = a.autoport === 'yes' || !a.port || a.port === '-1' ? null : Number(a.port);
  return {
    enabled: true,
    bind: (listen && attrsOf(listen).address) || a.listen || DEFAULT_VNC_BIND,
    port,
    resolution,
    wait: readVncWait(d),
    auth: a.passwd !== undefined && a.passwd !== '',
  };
}

interface VncSetting {
  enabled: boolean;
  bind: string;
  port: number;
  resolution: string;
  /** undefined keeps the current password; '' clears authentication */
  password?: string;
}

export function setVnc(d: DomainXml, vnc: VncSetting): void {
  const devices = d.devices;
  const old = find(devices, is('graphics', { type: 'vnc' }));
  const passwd = vnc.password === undefined ? (old ? attrsOf(old).passwd : undefined) : vnc.password;
  // the video keeps the PCI slot libvirt gave it: the bhyve option that makes it wait names that slot
  const oldVideo = find(devices, is('video'));
  const address = oldVideo && find(oldVideo, is('address', { type: 'pci' }));
  removeAll(devices, is('graphics', { type: 'vnc' }));
  removeAll(devices, is('video'));
  if (!vnc.enabled) return;
  const [x, y] = vnc.resolution.split('x');
  const attrs: Record<string, string> = { type: 'vnc', port: String(vnc.port), autoport: 'no', listen: vnc.bind };
  if (passwd) attrs.passwd = passwd;
  childrenOf(devices).push(
    el('graphics', attrs, [el('listen', { type: 'address', address: vnc.bind })]),
    el('video', {}, [el('model', { type: 'gop', heads: '1', primary: 'yes' }, [el('resolution', { x, y })]), ...(address ? [address] : [])]),
  );
}

/** Whether the domain boots through a UEFI loader (`<os><loader>`, no `<bootloader>`): bhyve's framebuffer needs it. */
export function bootsUefi(d: DomainXml): boolean {
  const os = find(d.root, is('os'));
  return Boolean(os && find(os, is('loader'))) && !find(d.root, is('bootloader'));
}

const isCdromAt = (iso: string) => (n: XNode) =>
  tagOf(n) === 'disk' && attrsOf(n).device === 'cdrom' && childrenOf(n).some((c) => tagOf(c) === 'source' && attrsOf(c).file === iso);

export function hasCdrom(d: DomainXml, iso: string): boolean {
  return childrenOf(d.devices).some(isCdromAt(iso));
}

/**
 * The index libvirt derives from a disk target name (util/virutil.c virDiskNameParse: the letters after the
 * `hd`/`sd`/`vd`/… prefix in base 26, `a` = 0, `aa` = 26), or null for a name of another form.
 */
export function diskNameIndex(name: string): number | null {
  const m = /^(?:fd|hd|vd|sd|xvd|ubd)([a-z]+)\d*$/.exec(name);
  if (!m) return null;
  let idx = 0;
  for (const c of m[1]) idx = idx * 26 + (c.charCodeAt(0) - 96);
  return idx - 1;
}

/**
 * The SATA drive addresses (`controller:unit`) the domain's disks hold. A disk without an `<address>` gets
 * one from its target name when defined (bhyve_domain.c bhyveDomainDiskDefAssignAddress, 32 units per AHCI
 * controller), whatever its prefix: `hda` and `sda` are both 0:0.
 */
function sataAddressesInUse(devices: XNode): Set<string> {
  const used = new Set<string>();
  for (const disk of findAll(devices, is('disk'))) {
    const target = find(disk, is('target'));
    if (!target || attrsOf(target).bus !== 'sata') continue;
    const addr = find(disk, is('address', { type: 'drive' }));
    if (addr) {
      used.add(`${attrsOf(addr).controller ?? '0'}:${attrsOf(addr).unit ?? '0'}`);
      continue;
    }
    const idx = diskNameIndex(attrsOf(target).dev ?? '');
    if (idx !== null) used.add(`${Math.floor(idx / 32)}:${idx % 32}`);
  }
  return used;
}

/**
 * Attaches (iso) or detaches (null) the cloud-init seed ISO found at `iso`, as a read-only SATA cdrom whose
 * target name maps to a drive address no other SATA disk holds: every define refuses two disks on one
 * (conf/domain_validate.c virDomainDefDuplicateDriveAddressesValidate), so `hda` beside a disk `sda` fails.
 */
export function setCloudInitCdrom(d: DomainXml, iso: string, attach: boolean): void {
  const devices = d.devices;
  removeAll(devices, isCdromAt(iso));
  if (!attach) return;
  const names = new Set(findAll(devices, is('disk')).flatMap((disk) => findAll(disk, is('target')).map((t) => attrsOf(t).dev)));
  const addresses = sataAddressesInUse(devices);
  const dev = [...'abcdefghijklmnopqrstuvwxyz']
    .map((c, i) => ({ name: `hd${c}`, address: `0:${i}` }))
    .find((c) => !names.has(c.name) && !addresses.has(c.address))?.name;
  if (!dev) throw new Error('cloud_init_no_sata_unit: every SATA unit hda-hdz of controller 0 is taken; nothing changed');
  childrenOf(devices).push(
    el('disk', { type: 'file', device: 'cdrom' }, [
      el('driver', { name: 'file', type: 'raw' }),
      el('source', { file: iso }),
      el('target', { dev, bus: 'sata' }),
      el('readonly'),
    ]),
  );
}

/** MAC addresses of the domain's interfaces, lower case. */
export function readMacs(d: DomainXml): string[] {
  return findAll(d.devices, is('interface'))
    .map((i) => find(i, is('mac')))
    .filter((m): m is XNode => Boolean(m))
    .map((m) => (attrsOf(m).address ?? '').toLowerCase())
    .filter(Boolean);
}

/** ZFS volumes backing the domain's disks (`/dev/zvol/<dataset>`). */
export function readZvols(d: DomainXml): string[] {
  return findAll(d.devices, is('disk')).flatMap((disk) =>
    findAll(disk, is('source'))
      .map((s) => attrsOf(s).dev ?? attrsOf(s).file ?? '')
      .filter((p) => p.startsWith('/dev/zvol/'))
      .map((p) => p.slice('/dev/zvol/'.length)),
  );
}
