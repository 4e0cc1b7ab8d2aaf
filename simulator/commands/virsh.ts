import { randomUUID } from 'node:crypto';
import type { SimHost } from '#shared/seed/host/schema';
import { rcEnabled } from '../boot.ts';
import { makeDirs, readFile, writeFile } from '../file-tree.ts';
import { libvirtVersionOf, profileOf } from '../profiles.ts';
import { fail, registerBootHook, registerCommand, registerTicker, type CommandContext, type CommandOutput } from '../registry.ts';
import { DefineError, listTable, normalizeDefinition, seedDomainXml, startRefusal, withoutSecrets, type SimVm } from './virsh-model.ts';

/**
 * `virsh` against libvirt's bhyve driver on the simulated host: version, list, domname, domstate, dumpxml,
 * define, undefine, start, shutdown, reboot, destroy, autostart — with virsh's messages. `shutdown` and `reboot`
 * press the guest's ACPI power button; the guest (its seed's `acpi`) decides whether and when it powers off. A seeded VM in state `orphaned`
 * is one libvirt does not define (only the agent's registration files are left); `virsh` does not see it. A
 * domain undefined here leaves no record at all, as in libvirt.
 *
 * What it follows:
 * - the connection (tools/virsh.c `-c`/`--connect`): the host runs only the bhyve driver, so `bhyve:///system`
 *   (or no URI: libvirt probes its drivers) connects and any other URI fails as virConnectOpen does;
 * - the domain argument (tools/virsh-util.c virshLookupDomainInternal): a non-negative integer is tried as a
 *   domain ID first, then a 36-character string as a UUID, then the name. The bhyve driver's ID is the bhyve
 *   process's PID (bhyve_process.c `vm->def->id = vm->pid`), so a running VM's ID looks like any PID;
 * - `dumpxml` leaves the VNC `passwd` out unless `--security-info` asks for it (domain_conf.c,
 *   VIR_DOMAIN_XML_SECURE);
 * - `start` refuses what bhyve_command.c virBhyveProcessBuildBhyveCmd refuses (virsh-model.ts startRefusal).
 */
const vmsOf = (state: SimHost): SimVm[] => ((state as SimHost & { vms?: SimVm[] }).vms ??= []);
const defined = (state: SimHost) => vmsOf(state).filter((v) => v.state !== 'orphaned' && v.xml);
const domainName = (v: SimVm) => String(v.rid);
const isActive = (v: SimVm) => v.state !== 'shut off' && v.state !== 'orphaned';

type LookupBy = 'id' | 'uuid' | 'name';
function lookup(state: SimHost, arg: string | undefined, by: LookupBy[] = ['id', 'uuid', 'name']): SimVm | undefined {
  if (!arg) return undefined;
  const doms = defined(state);
  let found: SimVm | undefined;
  // virStrToLong_i(name, NULL, 10, &id) == 0 && id >= 0 → virDomainLookupByID (only active domains have an ID)
  if (by.includes('id') && /^\s*\+?\d+$/.test(arg)) found = doms.find((d) => isActive(d) && d.id === Number(arg));
  if (!found && by.includes('uuid') && arg.length === 36) found = doms.find((d) => d.uuid === arg.toLowerCase());
  if (!found && by.includes('name')) found = doms.find((d) => domainName(d) === arg);
  return found;
}
/** libvirt no longer knows the domain: its record goes (a seeded `orphaned` VM is one libvirt never knew). */
function forget(state: SimHost, vm: SimVm): void {
  const all = vmsOf(state);
  all.splice(all.indexOf(vm), 1);
}
const noDomain = (name: string) => fail(`error: failed to get domain '${name}'`);

/**
 * A simulated bhyve PID for a domain that starts: above the PIDs of boot-time daemons and past every running
 * bhyve, stepping as other processes fork in between.
 */
function nextPid(state: SimHost, vm: SimVm): number {
  const kernel = state as SimHost & { lastBhyvePid?: number };
  const running = vmsOf(state).map((v) => v.id ?? 0);
  // PIDs grow (a domain restarted gets a new one) until a reboot starts them over
  const pid = Math.max(1800, kernel.lastBhyvePid ?? 0, ...running) + 1 + (vm.rid % 97);
  kernel.lastBhyvePid = pid;
  return pid;
}

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
    writeFile(state, `${dir}/vm.json`, JSON.stringify(registration, null, 2) + '\n', '600');
    writeFile(state, `${dir}/domain.xml`, xml, '600');
    if (vm.cloudInit) writeFile(state, `${dir}/cloud-init.iso`, JSON.stringify({ format: 'cd9660', label: 'CIDATA', files: {} }), '600');
    if (isActive(vm)) vm.id ??= nextPid(state, vm);
    vm.materialized = true;
  }
});

/** At a boot every bhyve process is gone; libvirtd (when rc.conf enables it) starts the domains marked autostart. */
registerBootHook('vms', (state) => {
  delete (state as SimHost & { lastBhyvePid?: number }).lastBhyvePid;
  for (const vm of [...vmsOf(state)]) {
    if (isActive(vm)) processGone(state, vm);
  }
  if (!rcEnabled(state, 'libvirtd_enable')) return;
  for (const vm of defined(state)) {
    if (vm.autostart && !startRefusal(vm.xml!, libvirtVersionOf(state))) {
      vm.state = 'running';
      vm.id = nextPid(state, vm);
    }
  }
});

type Sub = (ctx: CommandContext, args: string[]) => CommandOutput;
const subs = new Map<string, Sub>();
const sub = (name: string, fn: Sub) => subs.set(name, fn);
const operand = (args: string[]) => args.find((a) => !a.startsWith('--'));

/** The only connection this host has (libvirt's bhyve driver, privileged). */
const BHYVE_URI = 'bhyve:///system';

registerCommand('virsh', (ctx) => {
  // tools/virsh.c virshParseArgv: options before the command
  const args = ctx.args;
  let uri: string | undefined;
  let i = 0;
  for (; i < args.length && args[i].startsWith('-'); i++) {
    const a = args[i];
    if (a === '-c' || a === '--connect') uri = args[++i];
    else if (a.startsWith('--connect=')) uri = a.slice('--connect='.length);
    else if (a === '-q' || a === '--quiet' || a === '-r' || a === '--readonly') continue;
    else return fail(`error: unsupported option '${a}'. See --help.`);
  }
  if (uri !== undefined && uri !== BHYVE_URI) {
    return fail(`error: failed to connect to the hypervisor\nerror: no connection driver available for ${uri}`);
  }
  const [name, ...rest] = args.slice(i);
  if (name === undefined) return fail('error: no command given');
  const fn = subs.get(name);
  if (!fn) return fail(`error: unknown command: '${name}'`);
  return fn(ctx, rest);
});

sub('version', (ctx) => {
  const v = libvirtVersionOf(ctx.state);
  // bhyveConnectGetVersion: the kernel's release (uname), e.g. 14.3-RELEASE → 14.3.0
  const [major, minor] = profileOf(ctx.state).osrelease.split(/[.-]/);
  return {
    stdout: `Compiled against library: libvirt ${v}\nUsing library: libvirt ${v}\nUsing API: BHYVE ${v}\nRunning hypervisor: BHYVE ${major}.${minor}.0\n\n`,
  };
});

sub('list', (ctx, args) => {
  const all = args.includes('--all') || args.includes('--inactive');
  const inactiveOnly = args.includes('--inactive');
  const doms = defined(ctx.state);
  const running = doms.filter((d) => isActive(d) && !inactiveOnly).sort((a, b) => (a.id ?? 0) - (b.id ?? 0));
  const stopped = all ? doms.filter((d) => d.state === 'shut off').sort((a, b) => domainName(a).localeCompare(domainName(b))) : [];
  const rows = [...running, ...stopped];
  const uuid = args.includes('--uuid');
  const name = args.includes('--name');
  // tools/virsh-domain-monitor.c cmdList: --uuid/--name print one domain a line instead of the table
  if (uuid && name) return { stdout: rows.map((d) => `${d.uuid!.padEnd(36)} ${domainName(d).padEnd(30)}\n`).join('') + '\n' };
  if (uuid) return { stdout: rows.map((d) => `${d.uuid}\n`).join('') + '\n' };
  if (name) return { stdout: rows.map((d) => `${domainName(d)}\n`).join('') + '\n' };
  return { stdout: listTable(rows.map((d) => [isActive(d) ? String(d.id ?? '-') : '-', domainName(d), d.state])) };
});

// cmdDomname looks the domain up by ID or UUID only
sub('domname', (ctx, args) => {
  const arg = operand(args);
  const d = lookup(ctx.state, arg, ['id', 'uuid']);
  if (!d) return noDomain(arg ?? '');
  return { stdout: `${domainName(d)}\n\n` };
});

sub('domstate', (ctx, args) => {
  const arg = operand(args);
  const d = lookup(ctx.state, arg);
  if (!d) return noDomain(arg ?? '');
  const reason = d.state === 'running' ? 'booted' : d.state === 'paused' ? 'user' : 'shutdown';
  return { stdout: args.includes('--reason') ? `${d.state} (${reason})\n\n` : `${d.state}\n\n` };
});

sub('dumpxml', (ctx, args) => {
  const arg = operand(args);
  const d = lookup(ctx.state, arg);
  if (!d) return noDomain(arg ?? '');
  return { stdout: args.includes('--security-info') ? d.xml! : withoutSecrets(d.xml!) };
});

sub('define', (ctx, args) => {
  const file = operand(args);
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
  if (rid === null)
    return fail(
      `error: Failed to define domain from ${file}\nerror: unsupported configuration: the simulated host only holds domains named by a guest id (1-9999)`,
    );
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
  const arg = operand(args);
  const d = lookup(ctx.state, arg);
  if (!d) return noDomain(arg ?? '');
  // bhyve_driver.c bhyveDomainUndefineFlags: an inactive domain is removed from the domain list
  // (virDomainObjListRemove) — libvirt keeps nothing of it; a running one only becomes transient and goes
  // when it stops. The agent's registration files, if any, are files of the host and stay.
  if (d.state === 'shut off') forget(ctx.state, d);
  else d.transient = true;
  d.autostart = false;
  return { stdout: `Domain '${domainName(d)}' has been undefined\n\n` };
});

sub('autostart', (ctx, args) => {
  const arg = operand(args);
  const d = lookup(ctx.state, arg);
  if (!d) return noDomain(arg ?? '');
  d.autostart = !args.includes('--disable');
  return { stdout: `Domain '${domainName(d)}' ${d.autostart ? 'marked as autostarted' : 'unmarked as autostarted'}\n\n` };
});

sub('start', (ctx, args) => {
  const arg = operand(args);
  const d = lookup(ctx.state, arg);
  if (!d) return noDomain(arg ?? '');
  const name = domainName(d);
  if (d.state !== 'shut off') return fail(`error: Failed to start domain '${name}'\nerror: Requested operation is not valid: domain is already running`);
  const refusal = startRefusal(d.xml!, libvirtVersionOf(ctx.state));
  if (refusal) return fail(`error: Failed to start domain '${name}'\nerror: ${refusal}`);
  d.state = 'running';
  d.id = nextPid(ctx.state, d);
  delete d.powerOffAtMs;
  delete d.rebootOnPowerOff;
  return { stdout: `Domain '${name}' started\n\n` };
});

/** The bhyve process is gone: the domain is shut off, and a transient one is forgotten (bhyve_process.c virBhyveProcessStop). */
function processGone(state: SimHost, d: SimVm): void {
  d.state = 'shut off';
  delete d.id;
  delete d.powerOffAtMs;
  delete d.rebootOnPowerOff;
  // a transient domain that stops is gone from libvirt (bhyve_driver.c bhyveDomainDestroy: !persistent → virDomainObjListRemove)
  if (d.transient) forget(state, d);
}

const notRunning = (verb: string, name: string) =>
  fail(`error: Failed to ${verb} domain '${name}'\nerror: Requested operation is not valid: domain is not running`);

/**
 * The ACPI power button (`virsh shutdown`, `virsh reboot`): bhyve_process.c virBhyveProcessShutdown sends the
 * bhyve process SIGTERM and returns; bhyve turns it into a power-button press (usr.sbin/bhyve/pm.c
 * power_button_handler, installed when the guest enables ACPI). The domain stays `running` meanwhile (the bhyve
 * driver has no `in shutdown` state); a guest that honours the press powers off after `acpiShutdownSeconds`,
 * one that ignores it runs on. A second press while one is pending changes nothing (PWRBTN_STS already set).
 */
function pressPowerButton(now: number, d: SimVm): void {
  if ((d.acpi ?? 'honours') === 'ignores' || d.powerOffAtMs !== undefined) return;
  d.powerOffAtMs = now + Math.round((d.acpiShutdownSeconds ?? 2) * 1000);
}

/** bhyve_driver.c bhyveDomainShutdownFlags: virDomainObjCheckActive, then virBhyveProcessShutdown. */
sub('shutdown', (ctx, args) => {
  const arg = operand(args);
  const d = lookup(ctx.state, arg);
  if (!d) return noDomain(arg ?? '');
  const name = domainName(d);
  if (!isActive(d)) return notRunning('shutdown', name);
  pressPowerButton(ctx.now, d);
  return { stdout: `Domain '${name}' is being shutdown\n\n` };
});

/**
 * bhyve_driver.c bhyveDomainReboot: the same press, with the monitor told to start the domain again when the
 * bhyve process exits (bhyveMonitorSetReboot → virBhyveProcessRestart). A guest that ignores the button is not
 * rebooted, and virsh still says it is being rebooted.
 */
sub('reboot', (ctx, args) => {
  const arg = operand(args);
  const d = lookup(ctx.state, arg);
  if (!d) return noDomain(arg ?? '');
  const name = domainName(d);
  if (!isActive(d)) return notRunning('reboot', name);
  d.rebootOnPowerOff = true;
  pressPowerButton(ctx.now, d);
  return { stdout: `Domain '${name}' is being rebooted\n\n` };
});

/** bhyve_driver.c bhyveDomainDestroyFlags → virBhyveProcessStop: `bhyvectl --destroy`, at once, whatever the guest does. */
sub('destroy', (ctx, args) => {
  const arg = operand(args);
  const d = lookup(ctx.state, arg);
  if (!d) return noDomain(arg ?? '');
  const name = domainName(d);
  if (!isActive(d)) return notRunning('destroy', name);
  processGone(ctx.state, d);
  return { stdout: `Domain '${name}' destroyed\n\n` };
});

/** A guest that took the power button powers off when due; after `virsh reboot` libvirt starts it again (a new bhyve PID). */
registerTicker('vms-acpi', (state, now) => {
  for (const d of [...vmsOf(state)]) {
    if (d.powerOffAtMs === undefined || d.powerOffAtMs > now || !isActive(d)) continue;
    if (d.rebootOnPowerOff) {
      delete d.powerOffAtMs;
      delete d.rebootOnPowerOff;
      d.id = nextPid(state, d);
    } else processGone(state, d);
  }
});

/** The simulated host's VMs (tests read and arrange them through HostSimulator.state). */
export const simulatedVms = vmsOf;
/** The VMs whose bhyve process runs (running or paused): each holds its disks open. */
export const runningVms = (state: SimHost) => vmsOf(state).filter(isActive);
