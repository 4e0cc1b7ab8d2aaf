import { getopt, UsageError } from '../format.ts';
import { registerCommand, type CommandContext, type CommandOutput } from '../registry.ts';
import { conftxt } from '../geom-model.ts';
import { allOids, INTEGER_TYPES, parseInteger, registerSysctlProvider, type Oid } from '../sysctl-tree.ts';

/**
 * sysctl(8) of FreeBSD 14: show (`name: value`, -n, -e, -t, -d, -N), list (-a with -W/-T), set
 * (`name: old -> new`) and its messages (see test/fixtures/freebsd/sysctl-*.txt).
 */

registerSysctlProvider('host', (state) => [
  {
    name: 'kern.hostname',
    type: 'string',
    value: state.hostname,
    writable: true,
    description: 'Hostname',
    set: (st, v) => {
      st.hostname = v;
    },
  },
  {
    name: 'kern.disks',
    type: 'string',
    value: state.disks
      .map((d) => d.name)
      .reverse()
      .join(' '),
    writable: false,
    description: 'names of available disks',
  },
  // geom_kern.c sysctl_kern_geom_conftxt: the text g_conftxt builds (geom-model.ts), newline-ended lines
  { name: 'kern.geom.conftxt', type: 'string', value: conftxt(state), writable: false, description: 'Dump the GEOM config in txt' },
  // kern_tc.c exports the boot time as an opaque S,timeval, which sysctl(8) prints with S_timeval (boottime.ts)
  { name: 'kern.boottime', type: 'opaque', value: boottime(state.bootTimeMs ?? 0), writable: false, description: 'Estimated system boottime' },
  { name: 'hw.ncpu', type: 'integer', value: String(state.cpus), writable: false, description: 'Number of active CPUs' },
  { name: 'hw.physmem', type: 'unsigned long', value: String(state.memoryBytes), writable: false, description: 'Amount of physical memory (in bytes)' },
]);

/**
 * freebsd-src sbin/sysctl/sysctl.c S_timeval: `{ sec = %jd, usec = %ld } ` then ctime(3) of `sec`, its newline cut.
 * ctime prints local time; a simulated host's zone is UTC.
 */
export function boottime(ms: number): string {
  const sec = Math.floor(ms / 1000);
  const usec = Math.floor(ms % 1000) * 1000;
  return `{ sec = ${sec}, usec = ${usec} } ${ctime(new Date(sec * 1000))}`;
}

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const pad2 = (n: number) => String(n).padStart(2, '0');

/** asctime(3)'s `%.3s %.3s%3d %.2d:%.2d:%.2d %d` (the day of the month space-padded), in UTC, without the newline. */
function ctime(d: Date): string {
  return `${DAYS[d.getUTCDay()]} ${MONTHS[d.getUTCMonth()]}${String(d.getUTCDate()).padStart(3)} ${pad2(d.getUTCHours())}:${pad2(d.getUTCMinutes())}:${pad2(d.getUTCSeconds())} ${d.getUTCFullYear()}`;
}

interface Flags {
  names: boolean; // -N
  noNames: boolean; // -n
  equals: boolean; // -e
  types: boolean; // -t
  descr: boolean; // -d
}

function show(o: Oid, f: Flags): string {
  if (f.names) return o.name;
  const parts: string[] = [];
  if (f.types) parts.push(o.type);
  if (f.descr) parts.push(o.description ?? '');
  if (!f.types && !f.descr) parts.push(o.value);
  const body = parts.join(': ');
  if (f.noNames) return body;
  return `${o.name}${f.equals && !f.types && !f.descr ? '=' : ': '}${body}`;
}

function run(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'AabB:def:hiNnoqTtWxX');
  const f: Flags = { names: o.flags.has('N'), noNames: o.flags.has('n'), equals: o.flags.has('e'), types: o.flags.has('t'), descr: o.flags.has('d') };
  const quiet = o.flags.has('q');
  const ignoreUnknown = o.flags.has('i');
  const oids = allOids(ctx.state, ctx.now);
  const wanted = (x: Oid) =>
    (!o.flags.has('W') || (x.writable && !x.stats)) && (!o.flags.has('T') || Boolean(x.tunable)) && (o.flags.has('o') || x.type !== 'opaque');
  let stdout = '';
  let stderr = '';
  let failures = 0;
  const warn = (msg: string) => {
    stderr += `sysctl: ${msg}\n`;
    failures++;
  };

  if (o.flags.has('a')) {
    if (o.operands.length) throw new UsageError('-a takes no names');
    for (const x of oids.filter(wanted)) stdout += show(x, f) + '\n';
    return { stdout };
  }
  if (!o.operands.length) throw new UsageError('no name given');

  for (const arg of o.operands) {
    const eq = arg.indexOf('=');
    const name = eq < 0 ? arg : arg.slice(0, eq);
    const exact = oids.find((x) => x.name === name);
    const children = exact ? [] : oids.filter((x) => x.name.startsWith(name + '.'));
    if (!exact && !children.length) {
      if (ignoreUnknown) continue;
      if (quiet) failures++;
      else warn(`unknown oid '${name}'`);
      continue;
    }
    if (eq < 0) {
      for (const x of exact ? [exact] : children.filter(wanted)) stdout += show(x, f) + '\n';
      continue;
    }
    if (!exact) {
      warn(`oid '${name}' isn't a leaf node`);
      continue;
    }
    const text = arg.slice(eq + 1);
    if (!exact.writable) {
      if (exact.tunable) {
        warn(`oid '${name}' is a read only tunable`);
        stderr += 'sysctl: Tunable values are set in /boot/loader.conf\n';
      } else warn(`oid '${name}' is read only`);
      continue;
    }
    let value = text;
    if (INTEGER_TYPES[exact.type]) {
      const n = parseInteger(exact.type, text);
      if (n === null) {
        warn(`invalid ${exact.type} '${text}'`);
        continue;
      }
      if ((exact.min !== undefined && n < BigInt(exact.min)) || (exact.max !== undefined && n > BigInt(exact.max))) {
        warn(`${name}=${text}: Invalid argument`);
        continue;
      }
      value = n.toString();
    } else if (exact.type !== 'string') {
      warn(`oid '${name}' is type ${exact.type}, cannot set that`);
      continue;
    }
    exact.set?.(ctx.state, value);
    const after = allOids(ctx.state, ctx.now).find((x) => x.name === name)!;
    stdout += `${f.noNames ? '' : `${name}: `}${exact.value} -> ${after.value}\n`;
  }
  return { code: failures ? 1 : 0, stdout, stderr };
}

const USAGE = 'usage: sysctl [-bdehiNnoqTtWx] [ -B <bufsize> ] [-f filename] name[=value] ...\n       sysctl [-bdehNnoqTtWx] [ -B <bufsize> ] -a\n';

registerCommand('sysctl', (ctx) => {
  try {
    return run(ctx);
  } catch (e) {
    if (e instanceof UsageError) return { code: 1, stderr: USAGE };
    throw e;
  }
});
