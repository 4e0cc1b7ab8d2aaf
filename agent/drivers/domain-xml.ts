import { XMLBuilder, XMLParser } from 'fast-xml-parser';

/**
 * libvirt bhyve domain XML, read and patched as a tree (fast-xml-parser in preserve-order mode, so a
 * patched document keeps every element it did not touch, in order). The agent reads what a VM's options
 * are from `virsh dumpxml` and writes the options of E5/E17/E19 back for `virsh define`.
 */
type Attrs = Record<string, string>;
/** One node of the preserve-order tree: `{tag: children, ':@': attrs}` or `{'#text': text}`. */
export type XNode = Record<string, unknown>;

const OPTIONS = {
  preserveOrder: true,
  ignoreAttributes: false,
  attributeNamePrefix: '',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  suppressEmptyNode: true,
  format: true,
  indentBy: '  ',
} as const;

export const GUEST_AGENT_CHANNEL = 'org.qemu.guest_agent.0';

export const tagOf = (n: XNode): string | undefined => Object.keys(n).find((k) => k !== ':@' && k !== '#text');
export const attrsOf = (n: XNode): Attrs => (n[':@'] as Attrs | undefined) ?? {};
export const childrenOf = (n: XNode): XNode[] => {
  const t = tagOf(n);
  return t ? (n[t] as XNode[]) : [];
};
const textOf = (n: XNode): string =>
  childrenOf(n)
    .map((c) => (c['#text'] as string | undefined) ?? '')
    .join('');

/** Builds an element node. */
export function el(tag: string, attrs: Attrs = {}, children: XNode[] = []): XNode {
  const node: XNode = { [tag]: children };
  if (Object.keys(attrs).length) node[':@'] = attrs;
  return node;
}

type Match = (n: XNode) => boolean;
export const is =
  (tag: string, attrs: Attrs = {}): Match =>
  (n) =>
    tagOf(n) === tag && Object.entries(attrs).every(([k, v]) => attrsOf(n)[k] === v);

export const find = (parent: XNode, m: Match): XNode | undefined => childrenOf(parent).find(m);
export const findAll = (parent: XNode, m: Match): XNode[] => childrenOf(parent).filter(m);
/** Removes matching children; returns how many. */
export function removeAll(parent: XNode, m: Match): number {
  const kids = childrenOf(parent);
  const keep = kids.filter((k) => !m(k));
  const removed = kids.length - keep.length;
  kids.splice(0, kids.length, ...keep);
  return removed;
}

/** A parsed domain document. */
export class DomainXml {
  private constructor(private readonly doc: XNode[]) {}

  static parse(xml: string): DomainXml {
    const doc = new XMLParser(OPTIONS).parse(xml) as XNode[];
    if (!doc.some(is('domain'))) throw new Error('not a libvirt domain document: no <domain> root element');
    return new DomainXml(doc);
  }

  toString(): string {
    return (new XMLBuilder(OPTIONS).build(this.doc) as string).trim() + '\n';
  }

  get root(): XNode {
    return this.doc.find(is('domain'))!;
  }

  get type(): string | undefined {
    return attrsOf(this.root).type;
  }

  get name(): string {
    const n = find(this.root, is('name'));
    return n ? textOf(n) : '';
  }

  get uuid(): string | undefined {
    const n = find(this.root, is('uuid'));
    return n ? textOf(n) : undefined;
  }

  get title(): string | undefined {
    const n = find(this.root, is('title'));
    return n ? textOf(n) || undefined : undefined;
  }

  /** the <devices> element, created when missing */
  get devices(): XNode {
    let d = find(this.root, is('devices'));
    if (!d) {
      d = el('devices');
      childrenOf(this.root).push(d);
    }
    return d;
  }
}
