import { CommandError, runChecked, type Executor } from '../executors/executor.ts';
import { parseVirshVersion } from './host-capabilities.ts';

/**
 * `virsh` as the agent uses it (libvirt's bhyve driver). Every call names the connection
 * (`-c bhyve:///system`): without it libvirt takes LIBVIRT_DEFAULT_URI, then `uri_default`, then probes each
 * driver in turn, and a libvirtd that also carries QEMU may answer for qemu:///system.
 *
 * Domains are addressed by UUID only. virsh tries a numeric argument as a domain ID first
 * (tools/virsh-util.c virshLookupDomainInternal: `virStrToLong_i(name, …) == 0 && id >= 0` →
 * virDomainLookupByID), and the bhyve driver's ID is the bhyve process's PID (bhyve_process.c
 * `vm->def->id = vm->pid`), so a domain named by a RID could resolve to whichever VM runs with that PID.
 * A 36-character UUID is never an ID.
 *
 * Output formats as libvirt prints them: `virsh list --all` is an `Id Name State` table (old libvirt pads the
 * columns wider: see the legacy fixture), `list --uuid` one UUID a line, `domstate`/`domname` the word(s) and
 * an empty line.
 */
export const LIBVIRT_URI = 'bhyve:///system';

export const virsh = (...args: string[]) => ['virsh', '-c', LIBVIRT_URI, ...args];

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A domain's UUID, checked, so that nothing else (a name, an ID) ever reaches virsh as a domain. */
function uuidArg(uuid: string): string {
  if (!UUID.test(uuid)) throw new Error(`not a libvirt domain UUID: "${uuid}"`);
  return uuid;
}

interface DomainListEntry {
  /** null for an inactive domain (`-`) */
  id: number | null;
  name: string;
  /** e.g. `running`, `shut off` */
  state: string;
}

export function parseListAll(stdout: string): DomainListEntry[] {
  const lines = stdout.split('\n');
  const headerAt = lines.findIndex((l) => /^\s*Id\s+Name\s+State\s*$/.test(l));
  if (headerAt < 0) throw new Error('virsh list: no "Id Name State" header in output');
  const header = lines[headerAt];
  const out: DomainListEntry[] = [];
  for (const line of lines.slice(headerAt + 1)) {
    if (!line.trim() || /^-+$/.test(line.trim())) continue;
    // columns are separated by runs of spaces; a state is one or two words (`shut off`, `in shutdown`)
    let parts = line.trim().split(/\s{2,}/);
    if (parts.length !== 3) {
      const [nameCol, stateCol] = [header.indexOf('Name'), header.indexOf('State')];
      parts = [line.slice(0, nameCol), line.slice(nameCol, stateCol), line.slice(stateCol)].map((p) => p.trim());
    }
    const [id, name, state] = parts;
    out.push({ id: id === '-' ? null : Number(id), name, state });
  }
  return out;
}

/** `virsh list --all --uuid`: one UUID a line (tools/virsh-domain-list.c cmdList), then an empty line. */
export function parseUuidList(stdout: string): string[] {
  return stdout
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => UUID.test(l));
}

/** `virsh domstate` output → the state (`running`, `shut off` …); `--reason` output keeps only the state. */
export function parseDomState(stdout: string): string {
  const first = stdout.split('\n').find((l) => l.trim() !== '') ?? '';
  return first.replace(/\s*\(.*\)\s*$/, '').trim();
}

/** libvirt's words for a domain it does not define. */
function isDomainNotFound(err: unknown): boolean {
  return err instanceof CommandError && /failed to get domain|domain not found|no domain with matching/i.test(err.message);
}

async function orNull<T>(run: () => Promise<T>): Promise<T | null> {
  try {
    return await run();
  } catch (err) {
    if (isDomainNotFound(err)) return null;
    throw err;
  }
}

/** UUIDs of every domain libvirt defines or runs. */
export async function listUuids(exec: Executor): Promise<string[]> {
  return parseUuidList(await runChecked(exec, virsh('list', '--all', '--uuid')));
}

/** The domain's name, or null when no domain has this UUID. */
export async function domName(exec: Executor, uuid: string): Promise<string | null> {
  return orNull(async () => (await runChecked(exec, virsh('domname', uuidArg(uuid)))).split('\n')[0].trim());
}

/** The domain's state, or null when libvirt does not define it. */
export async function domState(exec: Executor, uuid: string): Promise<string | null> {
  return orNull(async () => parseDomState(await runChecked(exec, virsh('domstate', uuidArg(uuid)))));
}

/**
 * The persistent definition (`--inactive`: what the next start uses, not the running instance's), with its
 * secrets (`--security-info`): libvirt writes the VNC `passwd` only into a secure dump (domain_conf.c,
 * VIR_DOMAIN_XML_SECURE), so a definition read without it and defined again loses the password.
 */
export async function dumpXml(exec: Executor, uuid: string): Promise<string> {
  return runChecked(exec, virsh('dumpxml', '--inactive', '--security-info', uuidArg(uuid)));
}

/** Defines (or redefines) a domain from an XML file on the host. */
export async function define(exec: Executor, xmlFile: string): Promise<void> {
  await runChecked(exec, virsh('define', xmlFile));
}

export async function startDomain(exec: Executor, uuid: string): Promise<void> {
  await runChecked(exec, virsh('start', uuidArg(uuid)));
}

/** Hard power-off. */
export async function destroyDomain(exec: Executor, uuid: string): Promise<void> {
  await runChecked(exec, virsh('destroy', uuidArg(uuid)));
}

/**
 * Asks the guest to power off: the bhyve driver sends the bhyve process SIGTERM (bhyve_process.c
 * virBhyveProcessShutdown), which bhyve turns into an ACPI power-button press once the guest enabled ACPI
 * (usr.sbin/bhyve/pm.c smi_cmd_handler → power_button_handler). virsh returns at once; the domain stays
 * `running` until the guest has powered off — or forever, if it ignores the button.
 */
export async function shutdownDomain(exec: Executor, uuid: string): Promise<void> {
  await runChecked(exec, virsh('shutdown', uuidArg(uuid)));
}

/** libvirt's version (`Using library: libvirt 11.1.0`, tools/virsh-host.c cmdVersion); null without libvirt. */
export async function libvirtVersion(exec: Executor): Promise<string | null> {
  const r = await exec.run(virsh('version')).catch(() => null);
  return r?.code === 0 ? parseVirshVersion(r.stdout) : null;
}

/**
 * The UUID of the domain named `name`, or null when libvirt defines none. `hint` (the UUID the agent last
 * defined it with) is tried first: one `domname` call when it still holds; otherwise every domain's name is
 * asked by its UUID.
 */
export async function findDomain(exec: Executor, name: string, hint?: string): Promise<string | null> {
  if (hint && UUID.test(hint) && (await domName(exec, hint)) === name) return hint;
  for (const uuid of await listUuids(exec)) {
    if ((await domName(exec, uuid)) === name) return uuid;
  }
  return null;
}
