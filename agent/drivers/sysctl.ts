import { CommandError, runChecked, type Executor } from '../executors/executor.ts';
import type { TunableInventory } from '#shared/agent-api/inventory';

/**
 * sysctl(8) of FreeBSD: read (`name: value`, -n, -t types, -d descriptions), set (`name: old -> new`) and
 * the inventory of tunables: the writable OIDs (`-W`), the loader tunables (`-T`, read-only where not also
 * writable) and a few read-only OIDs every host has.
 */

interface SysctlLine {
  name: string;
  value: string;
}

/**
 * `name: value` lines; a line that does not start with an OID name continues the previous value (a few
 * string OIDs hold newlines).
 */
export function parseSysctlLines(stdout: string): SysctlLine[] {
  const out: SysctlLine[] = [];
  const lines = stdout.endsWith('\n') ? stdout.slice(0, -1).split('\n') : stdout.split('\n');
  for (const line of lines) {
    const m = /^([A-Za-z0-9_%.-]+): ?(.*)$/.exec(line);
    if (m) out.push({ name: m[1], value: m[2] });
    else if (out.length) out[out.length - 1].value += `\n${line}`;
  }
  return out;
}

/** `-t -d` lines: `name: type: description`. */
export function parseSysctlTypes(stdout: string): { name: string; type: string; description: string }[] {
  return parseSysctlLines(stdout).map(({ name, value }) => {
    const i = value.indexOf(': ');
    return i < 0 ? { name, type: value.replace(/:$/, ''), description: '' } : { name, type: value.slice(0, i), description: value.slice(i + 2) };
  });
}

interface SysctlChange {
  name: string;
  old: string;
  new: string;
}

/** The success line of a set: `dev.cpu.0.freq: 800 -> 2501`. */
export function parseSysctlSet(stdout: string): SysctlChange[] {
  return parseSysctlLines(stdout).flatMap(({ name, value }) => {
    const i = value.lastIndexOf(' -> ');
    return i < 0 ? [] : [{ name, old: value.slice(0, i), new: value.slice(i + 4) }];
  });
}

/** Integer types as `sysctl -t` names them (sbin/sysctl ctl_typename). */
const INTEGER_TYPES = new Set([
  'integer',
  'unsigned integer',
  'long integer',
  'unsigned long',
  'int8_t',
  'int16_t',
  'int32_t',
  'int64_t',
  'uint8_t',
  'uint16_t',
  'uint32_t',
  'uint64_t',
]);

interface SysctlValue {
  name: string;
  type: string;
  /** as sysctl prints it */
  value: string;
  /** integer types: the value as a number (exact below 2^53), else null */
  number: number | null;
}

/** One OID with its type. Throws CommandError (`sysctl: unknown oid '…'`) when it does not exist. */
export async function getSysctl(exec: Executor, name: string): Promise<SysctlValue> {
  const [typeLine] = parseSysctlLines(await runChecked(exec, ['sysctl', '-t', name]));
  const raw = await runChecked(exec, ['sysctl', '-n', name]);
  const value = raw.endsWith('\n') ? raw.slice(0, -1) : raw;
  const type = typeLine?.value ?? '';
  return { name, type, value, number: INTEGER_TYPES.has(type) && /^-?\d+$/.test(value) ? Number(value) : null };
}

/** Values of several OIDs in one call (`name: value` lines); unknown names are simply missing. */
export async function getSysctls(exec: Executor, names: string[]): Promise<Map<string, string>> {
  const res = await exec.run(['sysctl', '-q', ...names]);
  const lines = parseSysctlLines(res.stdout);
  if (res.code !== 0 && !lines.length) throw new CommandError(['sysctl', '-q', ...names], res);
  return new Map(lines.map((l) => [l.name, l.value]));
}

/**
 * `sysctl name=value`. Returns the old and new values; throws CommandError with sysctl's message
 * (`sysctl: oid '…' is a read only tunable`, `sysctl: invalid integer '…'`, `sysctl: unknown oid '…'`).
 */
export async function setSysctl(exec: Executor, name: string, value: string): Promise<SysctlChange> {
  const argv = ['sysctl', `${name}=${value}`];
  const out = await runChecked(exec, argv);
  const change = parseSysctlSet(out).find((c) => c.name === name);
  if (!change) throw new Error(`sysctl ${name}: unexpected output: ${out.trim()}`);
  return change;
}

/** Read-only OIDs the inventory always carries, so that a request to set one is told it is read-only. */
const CORE_READONLY = ['kern.ostype', 'kern.osrelease', 'kern.osreldate', 'hw.ncpu', 'hw.physmem', 'hw.pagesize', 'hw.model', 'hw.machine'];

async function listing(
  exec: Executor,
  flags: string,
  names: string[] = [],
): Promise<{ values: Map<string, string>; meta: Map<string, { type: string; description: string }> }> {
  const valuesRes = await exec.run(['sysctl', ...(names.length ? ['-q', ...names] : [`-a${flags}`])]);
  const metaRes = await exec.run(['sysctl', ...(names.length ? ['-q', '-td', ...names] : [`-a${flags}td`])]);
  // -q with an unknown name exits 1 after printing the known ones; with -a any failure is real
  if (!names.length) for (const r of [valuesRes, metaRes]) if (r.code !== 0) throw new CommandError(['sysctl', `-a${flags}`], r);
  return {
    values: new Map(parseSysctlLines(valuesRes.stdout).map((l) => [l.name, l.value])),
    meta: new Map(parseSysctlTypes(metaRes.stdout).map((l) => [l.name, l])),
  };
}

/**
 * The tunables of the host: writable OIDs (writable), loader tunables that are not writable at run time
 * and the core read-only OIDs (writable: false), each with type, value and description. Opaque and node
 * OIDs are left out: sysctl cannot set them from the command line.
 */
export async function listTunables(exec: Executor): Promise<TunableInventory[]> {
  const writable = await listing(exec, 'W');
  const tunables = await listing(exec, 'T');
  const core = await listing(exec, '', CORE_READONLY);
  const out = new Map<string, TunableInventory>();
  const add = (src: Awaited<ReturnType<typeof listing>>, isWritable: (name: string) => boolean) => {
    for (const [name, value] of src.values) {
      if (out.has(name)) continue;
      const meta = src.meta.get(name);
      if (!meta || meta.type === 'opaque' || meta.type === 'node') continue;
      const t: TunableInventory = { name, type: meta.type, value, writable: isWritable(name) };
      if (meta.description) t.description = meta.description;
      out.set(name, t);
    }
  };
  add(writable, () => true);
  add(tunables, (n) => writable.values.has(n));
  add(core, (n) => writable.values.has(n));
  return [...out.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}
