import { CommandError, runChecked, type Executor } from '../executors/executor.ts';

/**
 * `virsh` as the agent uses it (libvirt's bhyve driver). Output formats as libvirt prints them:
 * `virsh list --all` is an `Id Name State` table (old libvirt pads the columns wider: see the legacy
 * fixture), `virsh domstate` prints the state word(s) and an empty line.
 */
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

/** `virsh domstate` output → the state (`running`, `shut off` …); `--reason` output keeps only the state. */
export function parseDomState(stdout: string): string {
  const first = stdout.split('\n').find((l) => l.trim() !== '') ?? '';
  return first.replace(/\s*\(.*\)\s*$/, '').trim();
}

/** libvirt's words for a domain it does not define. */
function isDomainNotFound(err: unknown): boolean {
  return err instanceof CommandError && /failed to get domain|domain not found|no domain with matching/i.test(err.message);
}

export async function listAll(exec: Executor): Promise<DomainListEntry[]> {
  return parseListAll(await runChecked(exec, ['virsh', 'list', '--all']));
}

/** The domain's state, or null when libvirt does not define it. */
export async function domState(exec: Executor, domain: string): Promise<string | null> {
  try {
    return parseDomState(await runChecked(exec, ['virsh', 'domstate', domain]));
  } catch (err) {
    if (isDomainNotFound(err)) return null;
    throw err;
  }
}

/** The persistent definition (`--inactive`: what the next start uses, not the running instance's). */
export async function dumpXml(exec: Executor, domain: string): Promise<string> {
  return runChecked(exec, ['virsh', 'dumpxml', '--inactive', domain]);
}

/** Defines (or redefines) a domain from an XML file on the host. */
export async function define(exec: Executor, xmlFile: string): Promise<void> {
  await runChecked(exec, ['virsh', 'define', xmlFile]);
}
