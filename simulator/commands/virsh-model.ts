import { randomUUID } from 'node:crypto';
import type { FromSchema } from 'json-schema-to-ts';
import { XMLParser } from 'fast-xml-parser';
import type { simVmSchema } from '#shared/seed/host/vm';
import { compareVersions } from '#shared/agent-api/capability-rules';
import { AddressError, assignAddresses } from './virsh-addresses.ts';

export type SimVm = FromSchema<typeof simVmSchema>;
type XNode = Record<string, unknown>;

/**
 * libvirt's side of the simulated host: domain definitions as libvirt prints them (`virsh dumpxml`:
 * single-quoted attributes, two-space indentation), the `virsh list` table (tools/vsh-table.c: each cell
 * " %s", columns padded to the widest cell + 2, a dashed line of width+3 per column), and the checks
 * `virsh define` makes before it accepts a definition.
 */

const parser = new XMLParser({
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
});

const tagOf = (n: XNode) => Object.keys(n).find((k) => k !== ':@' && k !== '#text');
const esc = (s: string, attr: boolean) =>
  s
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(attr ? /'/g : /$^/g, '&apos;')
    .replace(attr ? /"/g : /$^/g, '&quot;');

function serialize(nodes: XNode[], indent: string): string {
  let out = '';
  for (const n of nodes) {
    const tag = tagOf(n);
    if (!tag) {
      if (typeof n['#text'] === 'string') out += `${indent}${esc(n['#text'] as string, false)}\n`;
      continue;
    }
    const attrs = Object.entries((n[':@'] as Record<string, string>) ?? {})
      .map(([k, v]) => ` ${k}='${esc(String(v), true)}'`)
      .join('');
    const kids = (n[tag] as XNode[]) ?? [];
    if (!kids.length) out += `${indent}<${tag}${attrs}/>\n`;
    else if (kids.every((k) => !tagOf(k))) out += `${indent}<${tag}${attrs}>${esc(kids.map((k) => String(k['#text'] ?? '')).join(''), false)}</${tag}>\n`;
    else out += `${indent}<${tag}${attrs}>\n${serialize(kids, indent + '  ')}${indent}</${tag}>\n`;
  }
  return out;
}

/** A domain document in libvirt's output format. */
export const formatXml = (doc: XNode[]) =>
  serialize(
    doc.filter((n) => tagOf(n) !== '?xml'),
    '',
  );

const el = (tag: string, attrs: Record<string, string> = {}, kids: XNode[] = []): XNode =>
  Object.keys(attrs).length ? { [tag]: kids, ':@': attrs } : { [tag]: kids };
const txt = (tag: string, value: string, attrs: Record<string, string> = {}) => el(tag, attrs, [{ '#text': value }]);

export const BHYVE_UEFI = '/usr/local/share/uefi-firmware/BHYVE_UEFI.fd';

/** The definition the seed's fields describe, as the original system would have defined it. */
export function seedDomainXml(vm: SimVm): string {
  const kib = String(Math.ceil((vm.memoryBytes ?? 1073741824) / 1024));
  const devices: XNode[] = [];
  (vm.zvols ?? []).forEach((z, i) => {
    devices.push(
      el('disk', { type: 'block', device: 'disk' }, [
        el('driver', { name: 'file', type: 'raw' }),
        el('source', { dev: `/dev/zvol/${z}` }),
        el('target', { dev: `hd${'abcdefghijklmnopqrstuvwxyz'[i]}`, bus: 'sata' }),
      ]),
    );
  });
  devices.push(el('controller', { type: 'pci', index: '0', model: 'pci-root' }), el('controller', { type: 'sata', index: '0' }));
  for (const mac of vm.macs ?? [])
    devices.push(el('interface', { type: 'bridge' }, [el('mac', { address: mac }), el('source', { bridge: 'bridge0' }), el('model', { type: 'virtio' })]));
  devices.push(el('serial', { type: 'nmdm' }, [el('source', { master: `/dev/nmdm${vm.rid}A`, slave: `/dev/nmdm${vm.rid}B` })]));
  if (vm.guestAgent) {
    devices.push(el('controller', { type: 'virtio-serial', index: '0', ports: '16' }));
    devices.push(
      el('channel', { type: 'unix' }, [
        el('source', { mode: 'bind', path: `/var/run/libvirt/bhyve/${vm.rid}.agent` }),
        el('target', { type: 'virtio', name: 'org.qemu.guest_agent.0' }),
      ]),
    );
  }
  if (vm.vnc) {
    const bind = vm.vnc.bind ?? '127.0.0.1';
    const [x, y] = (vm.vnc.resolution ?? '1024x768').split('x');
    const g: Record<string, string> = { type: 'vnc', port: String(vm.vnc.port), autoport: 'no', listen: bind };
    if (vm.vnc.password) g.passwd = vm.vnc.password;
    devices.push(el('graphics', g, [el('listen', { type: 'address', address: bind })]));
    devices.push(el('video', {}, [el('model', { type: 'gop', heads: '1', primary: 'yes' }, [el('resolution', { x, y })])]));
  }
  if (vm.cloudInit) {
    devices.push(
      el('disk', { type: 'file', device: 'cdrom' }, [
        el('driver', { name: 'file', type: 'raw' }),
        el('source', { file: `/var/db/hostmgr/vms/${vm.rid}/cloud-init.iso` }),
        el('target', { dev: 'hdz', bus: 'sata' }),
        el('readonly'),
      ]),
    );
  }
  const domain = el('domain', { type: 'bhyve' }, [
    txt('name', String(vm.rid)),
    txt('uuid', vm.uuid ?? randomUUID()),
    txt('title', vm.name),
    txt('memory', kib, { unit: 'KiB' }),
    txt('currentMemory', kib, { unit: 'KiB' }),
    txt('vcpu', String(vm.vcpus ?? 1), { placement: 'static' }),
    el('os', {}, [txt('type', 'hvm', { arch: 'x86_64' }), txt('loader', BHYVE_UEFI, { readonly: 'yes', type: 'pflash' }), el('boot', { dev: 'hd' })]),
    el('features', {}, [el('acpi'), el('apic')]),
    el('clock', { offset: 'utc' }),
    txt('on_poweroff', 'destroy'),
    txt('on_reboot', 'restart'),
    txt('on_crash', 'destroy'),
    el('devices', {}, devices),
  ]);
  const kids = domain.domain as XNode[];
  assignAddresses(kids);
  if (vm.vnc?.wait) {
    // as the original system left it: bhyve's `wait` on the framebuffer's PCI slot, passed through
    const video = devices.find((d) => tagOf(d) === 'video')!;
    const addr = (video.video as XNode[]).find((k) => tagOf(k) === 'address')!;
    const slot = Number.parseInt((addr[':@'] as Record<string, string>).slot, 16);
    (domain[':@'] as Record<string, string>)['xmlns:bhyve'] = BHYVE_NS;
    kids.push(el('bhyve:commandline', {}, [el('bhyve:arg', { value: '-o' }), el('bhyve:arg', { value: `pci.0.${slot}.0.wait=true` })]));
  }
  return formatXml([domain]);
}

/** libvirt's bhyve XML namespace (bhyve_domain.c virBhyveDriverDomainXMLNamespace) */
const BHYVE_NS = 'http://libvirt.org/schemas/domain/bhyve/1.0';

/**
 * The pass-through arguments as libvirt keeps them: bhyveDomainDefNamespaceParse reads
 * `./bhyve:commandline/bhyve:arg` with the prefix bound to BHYVE_NS, so a `<bhyve:commandline>` whose prefix is
 * not declared with that URI is not read and so not kept; an arg without `value` fails the define ("No bhyve
 * command-line argument specified"). bhyveDomainDefNamespaceFormatXML prints the element last in the domain
 * and the root declares the namespace only when there are arguments.
 */
function normalizePassThrough(domain: XNode): void {
  const attrs = ((domain[':@'] as Record<string, string> | undefined) ??= {});
  const kids = domain.domain as XNode[];
  const declared = attrs['xmlns:bhyve'] === BHYVE_NS;
  const lines = kids.filter((k) => tagOf(k) === 'bhyve:commandline');
  const args = declared ? lines.flatMap((c) => (c['bhyve:commandline'] as XNode[]).filter((a) => tagOf(a) === 'bhyve:arg')) : [];
  for (const a of args)
    if ((a[':@'] as Record<string, string> | undefined)?.value === undefined) throw new DefineError('internal error: No bhyve command-line argument specified');
  kids.splice(0, kids.length, ...kids.filter((k) => tagOf(k) !== 'bhyve:commandline'));
  delete attrs['xmlns:bhyve'];
  if (!args.length) return;
  attrs['xmlns:bhyve'] = BHYVE_NS;
  kids.push(
    el(
      'bhyve:commandline',
      {},
      args.map((a) => el('bhyve:arg', { value: (a[':@'] as Record<string, string>).value })),
    ),
  );
}

export class DefineError extends Error {}

/**
 * What `virsh define` accepts: a well-formed `<domain type='bhyve'>` with a name; a missing uuid is
 * generated; a uuid that another domain has, or a name whose domain has another uuid, is refused.
 * Returns the definition as libvirt would print it back.
 */
export function normalizeDefinition(xml: string, others: SimVm[]): { name: string; uuid: string; xml: string } {
  let doc: XNode[];
  try {
    doc = parser.parse(xml, true) as XNode[];
  } catch (e) {
    throw new DefineError(`XML error: ${(e as Error).message}`);
  }
  const first = doc.find((n) => tagOf(n) && tagOf(n) !== '?xml');
  if (!first || tagOf(first) !== 'domain') throw new DefineError(`XML error: unexpected root element <${first ? tagOf(first) : ''}>, expecting <domain>`);
  const domain = first;
  const type = ((domain[':@'] as Record<string, string>) ?? {}).type;
  if (type !== 'bhyve') throw new DefineError(`invalid argument: domain type '${type ?? ''}' is not supported by the bhyve driver`);
  const kids = domain.domain as XNode[];
  const text = (tag: string) => {
    const n = kids.find((k) => tagOf(k) === tag);
    return n ? (n[tag] as XNode[]).map((c) => String(c['#text'] ?? '')).join('') || undefined : undefined;
  };
  const name = text('name');
  if (!name) throw new DefineError('XML error: missing name information');
  let uuid = text('uuid');
  const sameName = others.find((o) => o.state !== 'orphaned' && String(o.rid) === name);
  if (!uuid) {
    uuid = sameName?.uuid ?? randomUUID();
    kids.splice(1, 0, txt('uuid', uuid));
  }
  if (sameName && sameName.uuid && sameName.uuid !== uuid)
    throw new DefineError(`operation failed: domain '${name}' already exists with uuid ${sameName.uuid}`);
  dropUnknownGraphicsAttributes(kids);
  normalizePassThrough(domain);
  try {
    assignAddresses(kids);
  } catch (e) {
    if (e instanceof AddressError) throw new DefineError(e.message);
    throw e;
  }
  const sameUuid = others.find((o) => o.state !== 'orphaned' && o.uuid === uuid && String(o.rid) !== name);
  if (sameUuid) throw new DefineError(`operation failed: domain '${sameUuid.rid}' is already defined with uuid ${uuid}`);
  return { name, uuid, xml: formatXml(doc) };
}

/**
 * The attributes libvirt's VNC graphics parser reads (domain_conf.c virDomainGraphicsDefParseXMLVNC and the
 * common graphics attributes); anything else, such as a `wait`, is ignored on parse and so gone from the
 * definition.
 */
const VNC_GRAPHICS_ATTRIBUTES = new Set([
  'type',
  'port',
  'autoport',
  'websocket',
  'websocketGenerated',
  'listen',
  'passwd',
  'passwdValidTo',
  'connected',
  'keymap',
  'sharePolicy',
  'powerControl',
]);

function dropUnknownGraphicsAttributes(domainKids: XNode[]): void {
  const devices = domainKids.find((k) => tagOf(k) === 'devices');
  for (const g of ((devices?.devices as XNode[] | undefined) ?? []).filter((k) => tagOf(k) === 'graphics')) {
    const attrs = (g[':@'] as Record<string, string> | undefined) ?? {};
    if (attrs.type !== 'vnc') continue;
    for (const k of Object.keys(attrs)) if (!VNC_GRAPHICS_ATTRIBUTES.has(k)) delete attrs[k];
  }
}

/** The definition as `virsh dumpxml` prints it without `--security-info`: no VNC `passwd` (domain_conf.c VIR_DOMAIN_XML_SECURE). */
export const withoutSecrets = (xml: string) => xml.replace(/<graphics\b[^>]*>/g, (tag) => tag.replace(/ passwd='[^']*'/, ''));

/** libvirt release whose bhyve driver builds a virtio-console device from a virtio-serial controller (libvirt NEWS v12.4.0) */
const VIRTIO_CONSOLE_SINCE = '12.4.0';

/**
 * Why `virsh start` fails for this definition, as libvirt words it, or null: the checks of bhyve_command.c
 * virBhyveProcessBuildBhyveCmd, in its order (controllers, then graphics), each reported as
 * VIR_ERR_CONFIG_UNSUPPORTED ("unsupported configuration: …"). Two disks on one drive address never get here:
 * `define` refuses them (virsh-addresses.ts).
 */
export function startRefusal(xml: string, libvirtVersion: string): string | null {
  const doc = parser.parse(xml) as XNode[];
  const domain = doc.find((n) => tagOf(n) === 'domain');
  const kids = (domain?.domain as XNode[] | undefined) ?? [];
  const child = (parent: XNode[], tag: string) => parent.find((k) => tagOf(k) === tag);
  const kidsOf = (n: XNode | undefined) => (n ? ((n[tagOf(n)!] as XNode[]) ?? []) : []);
  const attrs = (n: XNode) => (n[':@'] as Record<string, string> | undefined) ?? {};
  const devices = kidsOf(child(kids, 'devices'));
  const unsupported = (msg: string) => `unsupported configuration: ${msg}`;
  for (const c of devices.filter((d) => tagOf(d) === 'controller')) {
    const type = attrs(c).type;
    if (type === 'pci' && (attrs(c).model ?? 'pci-root') !== 'pci-root') return unsupported('unsupported PCI controller model: only PCI root supported');
    if (type === 'virtio-serial' && compareVersions(libvirtVersion, VIRTIO_CONSOLE_SINCE) >= 0) continue;
    if (['ide', 'fdc', 'scsi', 'virtio-serial', 'ccid', 'xenbus'].includes(type)) return unsupported('unsupported controller device');
  }
  const graphics = devices.filter((d) => tagOf(d) === 'graphics');
  const videos = devices.filter((d) => tagOf(d) === 'video');
  if (graphics.length && videos.length) {
    if (graphics.length !== 1 || videos.length !== 1) return unsupported('Multiple graphics devices are not supported');
    const os = kidsOf(child(kids, 'os'));
    if (!child(os, 'loader') || child(kids, 'bootloader')) return unsupported('Graphics are only supported when booting using UEFI');
    const g = attrs(graphics[0]);
    if (g.type !== 'vnc') return unsupported('Only VNC supported');
    const port = Number(g.port ?? '-1');
    if (g.autoport !== 'yes' && (port < 5900 || port > 65535)) return unsupported('vnc port must be in range [5900,65535]');
    if (g.passwd?.includes(',')) return unsupported("Password may not contain ',' character");
  }
  return null;
}

/** `virsh list` output (tools/vsh-table.c) followed by virsh's blank line. */
export function listTable(rows: Array<[string, string, string]>): string {
  const all: Array<[string, string, string]> = [[' Id', 'Name', 'State'].map((s) => s.trim()) as [string, string, string], ...rows];
  const widths = [0, 1, 2].map((i) => Math.max(...all.map((r) => r[i].length)));
  const line = (r: string[]) => r.map((c, i) => ` ${c}${i < r.length - 1 ? ' '.repeat(widths[i] - c.length + 2) : ''}`).join('') + '\n';
  return line(all[0]) + widths.map((w) => '-'.repeat(w + 3)).join('') + '\n' + all.slice(1).map(line).join('') + '\n';
}
