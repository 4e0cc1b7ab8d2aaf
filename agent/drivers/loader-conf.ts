import { runChecked, type Executor } from '../executors/executor.ts';
import { readOrNull, writeText } from './host-files.ts';

/**
 * /boot/loader.conf (loader.conf(5)): `name="value"` lines read by the boot loader, where the last
 * assignment of a name wins. bhyve's PCI passthrough needs three of them: `pptdevs="b/s/f …"` (the devices
 * ppt(4) claims at boot), `ppt_load="YES"` and `vmm_load="YES"`.
 */
export const LOADER_CONF = '/boot/loader.conf';

const ASSIGNMENT = /^\s*([A-Za-z_][A-Za-z0-9_.-]*)\s*=\s*(?:"([^"]*)"|([^\s#]*))\s*(#.*)?$/;

const nameOf = (line: string) => ASSIGNMENT.exec(line)?.[1];
const assignedValue = (line: string) => {
  const m = ASSIGNMENT.exec(line);
  return m ? (m[2] ?? m[3] ?? '') : '';
};

/** `03/0/0` and `3/0/0` are one device: compared (and written) without leading zeros. */
const canonical = (entry: string) => (/^[0-9]+\/[0-9]+\/[0-9]+$/.test(entry) ? entry.split('/').map(Number).join('/') : entry);

/**
 * The content with `devices` in `pptdevs` (merged with every entry already listed, duplicates dropped, in
 * their first line; later `pptdevs` lines folded into it) and `ppt_load`/`vmm_load` set to "YES" wherever
 * assigned, or appended. Every other line is kept as it was.
 */
export function withPptDevices(content: string, devices: string[]): string {
  const lines = content === '' ? [] : content.replace(/\n$/, '').split('\n');
  const entries: string[] = [];
  const add = (e: string) => {
    const c = canonical(e);
    if (!entries.includes(c)) entries.push(c);
  };
  for (const line of lines) if (nameOf(line) === 'pptdevs') assignedValue(line).split(/\s+/).filter(Boolean).forEach(add);
  devices.forEach(add);

  const out: string[] = [];
  let pptdevsAt = -1;
  const seen = new Set<string>();
  for (const line of lines) {
    const name = nameOf(line);
    if (name === 'pptdevs') {
      if (pptdevsAt < 0) pptdevsAt = out.push('') - 1;
      continue;
    }
    if (name === 'ppt_load' || name === 'vmm_load') {
      seen.add(name);
      out.push(`${name}="YES"`);
      continue;
    }
    out.push(line);
  }
  const pptdevs = `pptdevs="${entries.join(' ')}"`;
  if (pptdevsAt >= 0) out[pptdevsAt] = pptdevs;
  else out.push(pptdevs);
  for (const name of ['ppt_load', 'vmm_load']) if (!seen.has(name)) out.push(`${name}="YES"`);
  return `${out.join('\n')}\n`;
}

/** The devices `pptdevs` lists (last assignment wins, as in the loader). */
export function pptDevicesOf(content: string): string[] {
  let value = '';
  for (const line of content.split('\n')) if (nameOf(line) === 'pptdevs') value = assignedValue(line);
  return value.split(/\s+/).filter(Boolean);
}

/**
 * Adds devices to the host's loader.conf, atomically: the new content goes to a temporary file beside it,
 * which `mv` then renames over the old one, so the loader never reads a half-written file.
 */
export async function addPptDevices(exec: Executor, devices: string[]): Promise<{ before: string | null; after: string }> {
  const before = await readOrNull(exec, LOADER_CONF);
  const after = withPptDevices(before ?? '', devices);
  const tmp = `${LOADER_CONF}.hostmgr-new`;
  await writeText(exec, tmp, after, '644');
  await runChecked(exec, ['mv', tmp, LOADER_CONF]);
  return { before, after };
}
