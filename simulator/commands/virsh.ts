import { randomUUID } from 'node:crypto';
import type { SimHost } from '#shared/seed/host/schema';
import { makeDirs, readFile, writeFile } from '../file-tree.ts';
import { fail, registerSubcommand, registerTicker, type CommandContext, type CommandOutput } from '../registry.ts';
import { DefineError, listTable, normalizeDefinition, seedDomainXml, type SimVm } from './virsh-model.ts';

/**
 * `virsh` against libvirt's bhyve driver on the simulated host: list --all, domstate, dumpxml, define,
 * undefine, start, shutdown, destroy — with virsh's messages. A VM in state `orphaned` is one libvirt does
 * not define (only the agent's registration files are left); `virsh` does not see it.
 */
const vmsOf = (state: SimHost): SimVm[] => ((state as SimHost & { vms?: SimVm[] }).vms ??= []);
const defined = (state: SimHost) => vmsOf(state).filter((v) => v.state !== 'orphaned' && v.xml);
const byName = (state: SimHost, name: string | undefined) => (name ? defined(state).find((v) => String(v.rid) === name || v.uuid === name) : undefined);
const noDomain = (name: string) => fail(`error: failed to get domain '${name}'`);

/**
 * Seeds describe VMs by their fields; the first command after start turns each into a libvirt definition
 * and the agent's registration files, as the original system left them on the host.
 */
registerTicker('vms-materialize', (state) => {
  for (const vm of vmsOf(state)) {
    if (vm.materialized) continue;
    vm.uuid ??= randomUUID();
    const xml = seedDomainXml(vm);
    if (vm.state !== 'orphaned') vm.xml = xml;
    const dir = `/var/db/hostmgr/vms/${vm.rid}`;
    makeDirs(state, dir);
    const registration = {
      rid: vm.rid,
      name: vm.name,
      shutdownWaitTime: vm.shutdownWaitTime ?? 30,
      cloudInit: { data: vm.cloudInit?.data ?? '', metadata: vm.cloudInit?.metadata ?? '', networkConfig: vm.cloudInit?.networkConfig ?? '' },
      macs: vm.macs ?? [],
      datasets: vm.zvols ?? [],
    };
    writeFile(state, `${dir}/vm.json`, JSON.stringify(registration, null, 2) + '\n');
    writeFile(state, `${dir}/domain.xml`, xml);
    if (vm.cloudInit) writeFile(state, `${dir}/cloud-init.iso`, JSON.stringify({ format: 'cd9660', label: 'cidata', files: {} }));
    if (vm.state === 'running' || vm.state === 'paused') vm.id ??= nextId(state);
    vm.materialized = true;
  }
});

const nextId = (state: SimHost) => Math.max(0, ...vmsOf(state).map((v) => v.id ?? 0)) + 1;

const sub = (name: string, fn: (ctx: CommandContext, args: string[]) => CommandOutput) =>
  registerSubcommand('virsh', name, (ctx) => {
    // `--connect bhyve:///system` and similar global options are accepted and ignored before the command
    return fn(ctx, ctx.args);
  });

sub('list', (ctx, args) => {
  const all = args.includes('--all') || args.includes('--inactive');
  const inactiveOnly = args.includes('--inactive');
  const doms = defined(ctx.state);
  const running = doms.filter((d) => d.state !== 'shut off' && !inactiveOnly).sort((a, b) => (a.id ?? 0) - (b.id ?? 0));
  const stopped = all ? doms.filter((d) => d.state === 'shut off').sort((a, b) => String(a.rid).localeCompare(String(b.rid))) : [];
  if (args.includes('--name')) return { stdout: [...running, ...stopped].map((d) => `${d.rid}\n`).join('') + '\n' };
  return { stdout: listTable([...running, ...stopped].map((d) => [d.state === 'shut off' ? '-' : String(d.id ?? '-'), String(d.rid), d.state])) };
});

sub('domstate', (ctx, args) => {
  const name = args.find((a) => !a.startsWith('--'));
  const d = byName(ctx.state, name);
  if (!d) return noDomain(name ?? '');
  const reason = d.state === 'running' ? 'booted' : d.state === 'paused' ? 'user' : 'shutdown';
  return { stdout: args.includes('--reason') ? `${d.state} (${reason})\n\n` : `${d.state}\n\n` };
});

sub('dumpxml', (ctx, args) => {
  const name = args.find((a) => !a.startsWith('--'));
  const d = byName(ctx.state, name);
  if (!d) return noDomain(name ?? '');
  return { stdout: d.xml! };
});

sub('define', (ctx, args) => {
  const file = args.find((a) => !a.startsWith('--'));
  if (!file) return fail("error: command 'define' requires <file> option");
  const xml = readFile(ctx.state, file);
  if (xml === null) return fail(`error: Failed to read file '${file}' to define domain\nerror: Failed to open file '${file}': No such file or directory`);
  let def: ReturnType<typeof normalizeDefinition>;
  try {
    def = normalizeDefinition(xml, defined(ctx.state));
  } catch (e) {
    if (e instanceof DefineError) return fail(`error: Failed to define domain from ${file}\nerror: ${e.message}`);
    throw e;
  }
  const rid = /^[1-9]\d{0,3}$/.test(def.name) ? Number(def.name) : null;
  if (rid === null) return fail(`error: Failed to define domain from ${file}\nerror: unsupported configuration: the simulated host only holds domains named by a guest id (1-9999)`);
  const existing = vmsOf(ctx.state).find((v) => v.rid === rid);
  if (existing) {
    existing.xml = def.xml;
    existing.uuid = def.uuid;
    existing.transient = false;
    if (existing.state === 'orphaned') existing.state = 'shut off';
  } else {
    vmsOf(ctx.state).push({ rid, name: def.name, state: 'shut off', uuid: def.uuid, xml: def.xml, materialized: true });
  }
  return { stdout: `Domain '${def.name}' defined from ${file}\n\n` };
});

sub('undefine', (ctx, args) => {
  const name = args.find((a) => !a.startsWith('--'));
  const d = byName(ctx.state, name);
  if (!d) return noDomain(name ?? '');
  // a running domain stays, transient, until it stops
  if (d.state === 'shut off') d.state = 'orphaned';
  else d.transient = true;
  return { stdout: `Domain '${d.rid}' has been undefined\n\n` };
});

sub('start', (ctx, args) => {
  const name = args.find((a) => !a.startsWith('--'));
  const d = byName(ctx.state, name);
  if (!d) return noDomain(name ?? '');
  if (d.state !== 'shut off') return fail('error: Failed to start domain \'' + d.rid + "'\nerror: Requested operation is not valid: domain is already running");
  d.state = 'running';
  d.id = nextId(ctx.state);
  return { stdout: `Domain '${d.rid}' started\n\n` };
});

const stop = (verb: string) => (ctx: CommandContext, args: string[]) => {
  const name = args.find((a) => !a.startsWith('--'));
  const d = byName(ctx.state, name);
  if (!d) return noDomain(name ?? '');
  if (d.state === 'shut off') return fail(`error: Failed to ${verb === 'destroyed' ? 'destroy' : 'shutdown'} domain '${d.rid}'\nerror: Requested operation is not valid: domain is not running`);
  d.state = d.transient ? 'orphaned' : 'shut off';
  delete d.id;
  return { stdout: verb === 'destroyed' ? `Domain '${d.rid}' destroyed\n\n` : `Domain '${d.rid}' is being shutdown\n\n` };
};
sub('shutdown', stop('shutdown'));
sub('destroy', stop('destroyed'));

/** The simulated host's VMs (tests read and arrange them through HostSimulator.state). */
export const simulatedVms = vmsOf;
