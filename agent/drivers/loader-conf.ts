import { runChecked, type Executor } from '../executors/executor.ts';
import { readOrNull, writeText } from './host-files.ts';

/**
 * /boot/loader.conf (loader.conf(5)): `name="value"` lines read by the boot loader, where the last assignment of
 * a name wins. bhyve's PCI passthrough needs `vmm_load="YES"` and the devices ppt(4) claims at boot in
 * `pptdevs="b/s/f …"`; vmm(4): "A large number of PCI device entries may require a string longer than the
 * 128-character limit of loader.conf(5) variables. The pptdevs2 and pptdevs3 variables can be used for additional
 * entries." There is no ppt.ko — ppt.c is built into vmm.ko (sys/modules/vmm/Makefile) — so `ppt_load` only makes
 * the loader complain; it is not written, and removed where found.
 *
 * The loader reads /boot/loader.conf, then /boot/loader.conf.d/*.conf, then /boot/loader.conf.local
 * (stand/defaults/loader.conf: loader_conf_files, loader_conf_dirs, local_loader_conf_files): an assignment there
 * overrides ours. The agent edits only /boot/loader.conf and refuses when a later file would undo its change.
 */
export const LOADER_CONF = '/boot/loader.conf';
export const LOADER_CONF_DIR = '/boot/loader.conf.d';
export const LOADER_CONF_LOCAL = '/boot/loader.conf.local';
export const PPTDEVS_VARS = ['pptdevs', 'pptdevs2', 'pptdevs3'] as const;
/** loader.conf(5)'s limit on a value, per vmm(4) */
export const PPTDEVS_MAX_CHARS = 128;

export class LoaderConfError extends Error {}

const ASSIGNMENT = /^\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(?:"([^"]*)"|([^\s#]*))\s*(#.*)?$/;

const nameOf = (line: string) => ASSIGNMENT.exec(line)?.[1];
const assignedValue = (line: string) => {
  const m = ASSIGNMENT.exec(line);
  return m ? (m[2] ?? m[3] ?? '') : '';
};

/** `03/0/0` and `3/0/0` are one device: compared (and written) without leading zeros. */
const canonical = (entry: string) => (/^[0-9]+\/[0-9]+\/[0-9]+$/.test(entry) ? entry.split('/').map(Number).join('/') : entry);

/** The last assignment of each name (the loader's reading of one file). */
export function loaderAssignments(content: string, into: Record<string, string> = {}): Record<string, string> {
  for (const line of content.split('\n')) {
    const name = nameOf(line);
    if (name !== undefined) into[name] = assignedValue(line);
  }
  return into;
}

/** The devices the three variables list, in order, without duplicates. */
export function pptEntries(vars: Record<string, string>): string[] {
  const out: string[] = [];
  for (const v of PPTDEVS_VARS)
    for (const e of (vars[v] ?? '').split(/\s+/).filter(Boolean)) {
      const c = canonical(e);
      if (!out.includes(c)) out.push(c);
    }
  return out;
}

/** Entries packed into at most three values of ≤ 128 characters; throws when they do not fit. */
function pack(entries: string[]): string[] {
  const values: string[] = [];
  for (const e of entries) {
    const last = values[values.length - 1];
    if (last !== undefined && last.length + 1 + e.length <= PPTDEVS_MAX_CHARS) values[values.length - 1] = `${last} ${e}`;
    else values.push(e);
  }
  if (values.length > PPTDEVS_VARS.length) {
    throw new LoaderConfError(
      `${LOADER_CONF}: ${entries.length} passthrough devices (${entries.join(' ')}) do not fit in pptdevs, pptdevs2 and pptdevs3 (${PPTDEVS_MAX_CHARS} characters each, vmm(4))`,
    );
  }
  return values;
}

/**
 * The content with `devices` added to the passthrough devices (merged with the entries of pptdevs, pptdevs2 and
 * pptdevs3, duplicates dropped) written as pptdevs[, pptdevs2[, pptdevs3]] where the first of them stood (or
 * appended), `vmm_load="YES"` wherever assigned (or appended), `ppt_load` removed. Every other line is kept.
 */
export function withPptDevices(content: string, devices: string[]): string {
  const lines = content === '' ? [] : content.replace(/\n$/, '').split('\n');
  const entries = pptEntries(loaderAssignments(content));
  for (const d of devices) if (!entries.includes(canonical(d))) entries.push(canonical(d));
  const values = pack(entries);

  const out: string[] = [];
  let pptAt = -1;
  let vmm = false;
  for (const line of lines) {
    const name = nameOf(line);
    if (name !== undefined && (PPTDEVS_VARS as readonly string[]).includes(name)) {
      if (pptAt < 0) pptAt = out.push('') - 1;
      continue;
    }
    if (name === 'ppt_load') continue;
    if (name === 'vmm_load') {
      vmm = true;
      out.push('vmm_load="YES"');
      continue;
    }
    out.push(line);
  }
  const ppt = values.map((v, i) => `${PPTDEVS_VARS[i]}="${v}"`);
  if (pptAt >= 0) out.splice(pptAt, 1, ...ppt);
  else out.push(...ppt);
  if (!vmm) out.push('vmm_load="YES"');
  return `${out.join('\n')}\n`;
}

/** The devices loader.conf lists in pptdevs, pptdevs2 and pptdevs3. */
export function pptDevicesOf(content: string): string[] {
  return pptEntries(loaderAssignments(content));
}

/** The files the loader reads after loader.conf, in its order, with their content. */
async function laterFiles(exec: Executor): Promise<Array<{ path: string; content: string }>> {
  const listing = await exec.run(['ls', LOADER_CONF_DIR]);
  const names = listing.code === 0 ? listing.stdout.split('\n').filter((n) => n.endsWith('.conf')) : [];
  const out: Array<{ path: string; content: string }> = [];
  for (const path of [...names.sort().map((n) => `${LOADER_CONF_DIR}/${n}`), LOADER_CONF_LOCAL]) {
    const content = await readOrNull(exec, path);
    if (content !== null) out.push({ path, content });
  }
  return out;
}

/**
 * Why the loader would not pass `devices` through with `after` as loader.conf, given the files it reads later:
 * a later pptdevs* without them, or a later vmm_load that is not YES. Null when nothing overrides.
 */
export function overrideProblem(after: string, later: Array<{ path: string; content: string }>, devices: string[]): string | null {
  const vars = loaderAssignments(after);
  const setBy: Record<string, string> = {};
  for (const f of later) {
    const own = loaderAssignments(f.content);
    for (const name of Object.keys(own)) setBy[name] = f.path;
    Object.assign(vars, own);
  }
  const effective = pptEntries(vars);
  const lost = devices.map(canonical).filter((d) => !effective.includes(d));
  const problems: string[] = [];
  if (lost.length) {
    const by = PPTDEVS_VARS.filter((v) => setBy[v]).map((v) => `${v} in ${setBy[v]}`);
    problems.push(`${lost.join(' ')} would not be passed through: ${by.join(', ')} overrides ${LOADER_CONF}`);
  }
  if (setBy.vmm_load && !/^yes$/i.test(vars.vmm_load ?? '')) problems.push(`vmm_load="${vars.vmm_load}" in ${setBy.vmm_load} keeps vmm.ko from loading`);
  return problems.length
    ? `${problems.join('; ')} (the loader reads it after ${LOADER_CONF}; hostmgr edits only ${LOADER_CONF}: change or remove that assignment)`
    : null;
}

/**
 * Adds devices to the host's loader.conf, atomically: the new content goes to a temporary file beside it,
 * which `mv` then renames over the old one, so the loader never reads a half-written file. Refuses (nothing
 * written) when the devices do not fit in the three variables or a file the loader reads later overrides them.
 */
export async function addPptDevices(exec: Executor, devices: string[]): Promise<{ before: string | null; after: string }> {
  const before = await readOrNull(exec, LOADER_CONF);
  const after = withPptDevices(before ?? '', devices);
  const problem = overrideProblem(after, await laterFiles(exec), devices);
  if (problem) throw new LoaderConfError(problem);
  const tmp = `${LOADER_CONF}.hostmgr-new`;
  await writeText(exec, tmp, after, '644');
  await runChecked(exec, ['mv', tmp, LOADER_CONF]);
  return { before, after };
}
