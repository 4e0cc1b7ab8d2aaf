import { type DomainXml, attrsOf, childrenOf, el, find, findAll, is, removeAll, type XNode } from './domain-xml.ts';

/**
 * bhyve's "wait for the first VNC client before booting" in a libvirt bhyve domain.
 *
 * libvirt cannot say it with `<graphics>`: bhyve_command.c bhyveBuildGraphicsArgStr (libvirt 11.x and 12.x)
 * writes `fbuf,tcp=…,password=…,w=,h=,vga=` and never `wait`, and the graphics parser drops attributes it does
 * not know. What is left is the driver's pass-through (libvirt ≥ 5.1.0): bhyve_domain.c
 * bhyveDomainDefNamespaceParse reads `<bhyve:commandline><bhyve:arg value='…'/>` (namespace
 * http://libvirt.org/schemas/domain/bhyve/1.0) and virBhyveProcessBuildBhyveCmd appends each value as one
 * argument after every `-s` device it built.
 *
 * Rather than a second `-s …,fbuf,…,wait` (bhyve allows one framebuffer, pci_fbuf.c pci_fbuf_init, and the
 * password would sit in the non-secure part of every `dumpxml`), the argument is bhyve's config option
 * `-o pci.<bus>.<slot>.<function>.wait=true` on libvirt's own framebuffer: freebsd-src usr.sbin/bhyve
 * pci_emul.c pci_parse_slot names the device's config node `pci.<bus>.<slot>.<function>`, bhyverun.c applies
 * `-o` in argument order (so after the `-s` that made the node), and pci_fbuf.c pci_fbuf_parse_config reads
 * `wait` from that node (get_config_bool_node_default). The slot is the one libvirt gave the `<video>`
 * (bhyve_device.c bhyveAssignDevicePCISlots), read from its `<address type='pci'>`.
 */
export const BHYVE_NS = 'http://libvirt.org/schemas/domain/bhyve/1.0';
const WAIT_OPTION = /^pci\.(\d+)\.(\d+)\.(\d+)\.wait=(.*)$/;
const TRUE = new Set(['true', 'on', 'yes', '1']);

const isCommandline = is('bhyve:commandline');
const argValue = (n: XNode) => attrsOf(n).value ?? '';

/** `pci.<bus>.<slot>.<function>` of the domain's video device, or null when libvirt gave it no PCI address yet. */
function videoNode(d: DomainXml): string | null {
  const video = find(d.devices, is('video'));
  const a = video && find(video, is('address', { type: 'pci' }));
  if (!a) return null;
  const n = (v: string | undefined) => Number.parseInt(v ?? '0', 16);
  return `pci.${n(attrsOf(a).bus)}.${n(attrsOf(a).slot)}.${n(attrsOf(a).function)}`;
}

/** The pass-through arguments, in order. */
function passThrough(d: DomainXml): XNode[] {
  const cmd = find(d.root, isCommandline);
  return cmd ? findAll(cmd, is('bhyve:arg')) : [];
}

/** Whether the domain's framebuffer waits for a VNC client: a `-o <video node>.wait=<true>` pass-through pair. */
export function readVncWait(d: DomainXml): boolean {
  const node = videoNode(d);
  if (!node) return false;
  const args = passThrough(d).map(argValue);
  let wait = false;
  // bhyve applies -o options in order: the last one for the key wins
  for (let i = 0; i + 1 < args.length; i++) {
    if (args[i] !== '-o') continue;
    const m = WAIT_OPTION.exec(args[i + 1]);
    if (m && `pci.${m[1]}.${m[2]}.${m[3]}` === node) wait = TRUE.has(m[4].toLowerCase());
  }
  return wait;
}

/**
 * Makes the framebuffer wait (or not): removes every `-o pci.*.wait=` pair (only this product writes them for
 * the one framebuffer a bhyve VM can have), then adds one for the video's slot. Every other pass-through
 * argument the host has is kept in its place. Returns false when waiting is asked for but the video has no
 * PCI address yet (libvirt assigns one at the next define).
 */
export function setVncWait(d: DomainXml, wait: boolean): boolean {
  const root = d.root;
  const cmd = find(root, isCommandline);
  if (cmd) {
    const kids = childrenOf(cmd);
    for (let i = 0; i < kids.length; i++) {
      if (argValue(kids[i]) === '-o' && i + 1 < kids.length && WAIT_OPTION.test(argValue(kids[i + 1]))) {
        kids.splice(i, 2);
        i--;
      }
    }
  }
  const node = wait ? videoNode(d) : null;
  if (wait && !node) return false;
  if (node) {
    let target = cmd;
    if (!target) {
      target = el('bhyve:commandline');
      childrenOf(root).push(target);
    }
    childrenOf(target).push(el('bhyve:arg', { value: '-o' }), el('bhyve:arg', { value: `${node}.wait=true` }));
  }
  if (cmd && !findAll(cmd, is('bhyve:arg')).length) removeAll(root, isCommandline);
  if (find(root, isCommandline)) {
    const attrs = (root[':@'] as Record<string, string> | undefined) ?? {};
    attrs['xmlns:bhyve'] = BHYVE_NS;
    root[':@'] = attrs;
  }
  return true;
}
