import type { SimHost } from '#shared/seed/host/schema';
import { filesBelow, readFile } from './file-tree.ts';
import { runBootHooks } from './registry.ts';

/**
 * What the host reads at boot: loader tunables (loader.conf(5)) into the kernel environment, and rc.conf(5)
 * for the services rc starts. The loader reads /boot/loader.conf, then /boot/loader.conf.d/*.conf, then
 * /boot/loader.conf.local (stand/defaults/loader.conf: loader_conf_files, loader_conf_dirs,
 * local_loader_conf_files), a later file overriding an earlier one; rc reads /etc/rc.conf, /etc/rc.conf.local,
 * then /etc/rc.conf.d/<name> (libexec/rc/rc.subr load_rc_config). /etc/defaults/* is not simulated: a name
 * not set reads as unset.
 */

/** `name="value"` / `name=value` lines; `#` comments and blank lines skipped; the last assignment wins. */
export function parseShellAssignments(text: string, into: Record<string, string> = {}): Record<string, string> {
  for (const raw of text.split('\n')) {
    const line = raw.replace(/^\s+/, '');
    if (!line || line.startsWith('#')) continue;
    const m = /^([A-Za-z_][A-Za-z0-9_.]*)=(?:"([^"]*)"|'([^']*)'|([^\s#]*))/.exec(line);
    if (m) into[m[1]] = m[2] ?? m[3] ?? m[4] ?? '';
  }
  return into;
}

/** The files directly in `dir` whose names end in `suffix`, by absolute path, in name order (the loader's and rc's order). */
const confDir = (state: SimHost, dir: string, suffix: string) =>
  Object.keys(filesBelow(state, dir))
    .filter((name) => name.endsWith(suffix) && !name.includes('/'))
    .sort()
    .map((name) => `${dir}/${name}`);

export function loaderConf(state: SimHost): Record<string, string> {
  const paths = ['/boot/loader.conf', ...confDir(state, '/boot/loader.conf.d', '.conf'), '/boot/loader.conf.local'];
  const out: Record<string, string> = {};
  for (const p of paths) parseShellAssignments(readFile(state, p) ?? '', out);
  return out;
}

export function rcConf(state: SimHost): Record<string, string> {
  const paths = ['/etc/rc.conf', '/etc/rc.conf.local', ...confDir(state, '/etc/rc.conf.d', '')];
  const out: Record<string, string> = {};
  for (const p of paths) parseShellAssignments(readFile(state, p) ?? '', out);
  return out;
}

/** rc.subr checkyesno: YES/TRUE/ON/1 in any case */
export function rcEnabled(state: SimHost, rcvar: string): boolean {
  return /^(yes|true|on|1)$/i.test(rcConf(state)[rcvar] ?? '');
}

/** A boot: the loader's tunables become the kernel environment, then every registered boot hook runs. */
export function boot(state: SimHost, now: number): void {
  state.bootTimeMs = now;
  state.kenv = loaderConf(state);
  runBootHooks(state, now);
}
