import { getopt } from '../format.ts';
import { fail, registerCommand, withUsage, type CommandOutput } from '../registry.ts';
import { ctlKernel } from './ctl-kernel.ts';

/**
 * ctladm(8) `portlist` and `devlist`, printed as usr.sbin/ctladm/ctladm.c does (cctl_portlist, cctl_devlist):
 * portlist `"%-4ju %-6s %-8s %-8s %-2d %-2d %s\n"` per port under `Port Online Frontend Name     pp vp`
 * (-f frontend, -p port, -q without header, -i/-v target, -l/-v LUN map `  LUN <n>: <ctl lun>`); devlist
 * `LUN Backend  %18s %4s %-16s %-16s` then `"%3ju %-8s %18ju %4u %-16s %-16s\n"` per LUN (-b backend) and, with
 * -v, its options `      name=value` (lun_type, num_threads, file, ctld_name, scsiname). The ioctl and tpc
 * ports stand for CTL's own frontends; serial numbers and device ids follow ctl_backend_block's MYSERIAL/MYDEVID
 * defaults (ctld sets none unless ctl.conf does). From the kernel state ctld left (./ctl-kernel.ts).
 */
const USAGE =
  'usage: ctladm <command> [-p port] [args]\n       ctladm devlist [-b backend] [-v] [-x]\n       ctladm portlist [-f frontend] [-i] [-p targ_port] [-q] [-v] [-x]';

interface Port {
  id: number;
  frontend: string;
  name: string;
  pp: number;
  vp: number;
  port: string;
  target?: string;
  luns?: number[][];
}

function portlist(args: string[], kernel: ReturnType<typeof ctlKernel>): CommandOutput {
  const o = getopt(args, 'f:ilp:qvx');
  if (o.flags.has('x')) return fail('ctladm: the simulator does not print the XML port list');
  const ports: Port[] = [
    { id: 0, frontend: 'ioctl', name: 'ioctl', pp: 0, vp: 0, port: '' },
    { id: 1, frontend: 'tpc', name: 'tpc', pp: 0, vp: 0, port: '' },
    ...kernel.ports.map((p, i) => ({
      id: 2 + i,
      frontend: 'iscsi',
      name: 'iscsi',
      pp: p.tag,
      vp: p.targetId,
      port: `${p.target},t,0x${p.tag.toString(16).padStart(4, '0')}`,
      target: p.target,
      luns: p.luns,
    })),
  ];
  const fe = o.values.get('f');
  const only = o.values.get('p');
  const verbose = o.flags.has('v');
  let out = o.flags.has('q') ? '' : 'Port Online Frontend Name     pp vp\n';
  for (const p of ports) {
    if (fe !== undefined && p.frontend !== fe) continue;
    if (only !== undefined && Number(only) !== p.id) continue;
    out += `${String(p.id).padEnd(4)} ${'YES'.padEnd(6)} ${p.frontend.padEnd(8)} ${p.name.padEnd(8)} ${String(p.pp).padEnd(2)} ${String(p.vp).padEnd(2)} ${p.port}\n`;
    if ((o.flags.has('i') || verbose) && p.target) out += `  Target: ${p.target}\n`;
    if (o.flags.has('l') || verbose) {
      if (p.luns) {
        for (const [n, id] of p.luns) out += `  LUN ${n}: ${id}\n`;
        if (!p.luns.length) out += '  No LUNs mapped\n';
      } else out += '  All LUNs mapped\n';
    }
  }
  return { stdout: out };
}

function devlist(args: string[], kernel: ReturnType<typeof ctlKernel>): CommandOutput {
  const o = getopt(args, 'b:vx');
  if (o.flags.has('x')) return fail('ctladm: the simulator does not print the XML LUN list');
  const be = o.values.get('b');
  let out = `LUN Backend  ${'Size (Blocks)'.padStart(18)} ${'BS'.padStart(4)} ${'Serial Number'.padEnd(16)} ${'Device ID'.padEnd(16)}\n`;
  for (const l of kernel.luns) {
    if (be !== undefined && be !== 'block') continue;
    const serial = `MYSERIAL${String(l.id).padStart(4, '0')}`;
    const devid = `MYDEVID${String(l.id).padStart(4, '0')}`;
    out += `${String(l.id).padStart(3)} ${'block'.padEnd(8)} ${String(l.blocks).padStart(18)} ${'512'.padStart(4)} ${serial.padEnd(16)} ${devid.padEnd(16)}\n`;
    if (o.flags.has('v')) out += `      lun_type=0\n      num_threads=14\n      file=${l.path}\n      ctld_name=${l.name}\n      scsiname=${l.name}\n`;
  }
  return { stdout: out };
}

registerCommand(
  'ctladm',
  withUsage((ctx) => {
    const [sub, ...rest] = ctx.args;
    if (sub === 'portlist') return portlist(rest, ctlKernel(ctx.state));
    if (sub === 'devlist') return devlist(rest, ctlKernel(ctx.state));
    return fail(USAGE);
  }, USAGE),
);
