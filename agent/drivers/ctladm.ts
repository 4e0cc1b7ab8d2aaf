import { runChecked, type Executor } from '../executors/executor.ts';

/**
 * What the kernel's CTL serves, read with ctladm(8) (usr.sbin/ctladm/ctladm.c cctl_portlist, cctl_devlist):
 * `ctladm portlist -f iscsi -l` prints `"%-4ju %-6s %-8s %-8s %-2d %-2d %s\n"` per port (id, online, frontend,
 * name, pp, vp, the port's designator — `<target>,t,0x<tag>` for an iSCSI port) and `  LUN <n>: <ctl lun>` per
 * mapped LUN; `ctladm devlist -v` prints `"%3ju %-8s %18ju %4u %-16s %-16s\n"` per LUN and its options as
 * `      name=value` (`file` is the backing path ctld gave it).
 */
export interface IscsiPort {
  id: number;
  online: boolean;
  target: string;
  /** LUN number in the target → CTL LUN id */
  luns: Map<number, number>;
}

export function parsePortlist(stdout: string): IscsiPort[] {
  const out: IscsiPort[] = [];
  for (const line of stdout.split('\n')) {
    const port = /^(\d+)\s+(YES|NO)\s+iscsi\s+\S+\s+-?\d+\s+-?\d+\s+(\S+)\s*$/.exec(line);
    if (port) {
      out.push({ id: Number(port[1]), online: port[2] === 'YES', target: port[3].replace(/,t,0x[0-9a-fA-F]+$/, ''), luns: new Map() });
      continue;
    }
    const lun = /^\s+LUN (\d+): (\d+)\s*$/.exec(line);
    if (lun && out.length) out[out.length - 1].luns.set(Number(lun[1]), Number(lun[2]));
  }
  return out;
}

export interface CtlLun {
  id: number;
  backend: string;
  options: Record<string, string>;
}

export function parseDevlist(stdout: string): CtlLun[] {
  const out: CtlLun[] = [];
  for (const line of stdout.split('\n')) {
    const row = /^\s*(\d+)\s+(\S+)\s+\d+\s+\d+\s/.exec(line);
    if (row) {
      out.push({ id: Number(row[1]), backend: row[2], options: {} });
      continue;
    }
    const opt = /^ {6}([^=\s]+)=(.*)$/.exec(line);
    if (opt && out.length) out[out.length - 1].options[opt[1]] = opt[2];
  }
  return out;
}

/** Target (lower-cased, as ctld names it) → LUN number → backing path, for every online iSCSI port. */
export async function servedLuns(exec: Executor): Promise<Map<string, Map<number, string>>> {
  const ports = parsePortlist(await runChecked(exec, ['ctladm', 'portlist', '-f', 'iscsi', '-l']));
  const luns = new Map(parseDevlist(await runChecked(exec, ['ctladm', 'devlist', '-v'])).map((l) => [l.id, l]));
  const out = new Map<string, Map<number, string>>();
  for (const p of ports) {
    if (!p.online) continue;
    const served = out.get(p.target) ?? new Map<number, string>();
    for (const [n, id] of p.luns) {
      const file = luns.get(id)?.options.file;
      if (file !== undefined) served.set(n, file);
    }
    out.set(p.target, served);
  }
  return out;
}
