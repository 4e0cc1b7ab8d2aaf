import type { SimHost } from '#shared/seed/host/schema';
import { rcEnabled } from '../boot.ts';
import { getopt, type ParsedOptions, UsageError } from '../format.ts';
import { registerBootHook, registerCommand, registerInvokeHook } from '../registry.ts';

/**
 * kldstat(8), after sbin/kldstat/kldstat.c main(): `-m modname` looks the module up (modfind); with `-q` it
 * prints nothing and exits 0 or 1, without it a missing module is `kldstat: can't find module NAME: No such file
 * or directory` (warn) and 1, a found one `Id  Refs Name` + `%3d %4d %s`. Without `-m`, the header and one line
 * per loaded file (`%2d %4d %p %-8zx %s`).
 *
 * What is loaded: the kernel, zfs.ko (a host with ZFS — a seeded ARC — loads it at boot; on one without,
 * running zfs or zpool loads it), and what the loader loaded at
 * the last boot (`<name>_load="YES"` in the kernel environment, e.g. vmm_load), plus pf.ko / ipfw.ko when
 * rc.conf enables the firewall (rc.d/pf and rc.d/ipfw kldload them at boot). kldload is not simulated.
 */
interface Kld {
  file: string;
  size: number;
  modules: string[];
}

const KNOWN: Record<string, Kld> = {
  vmm: { file: 'vmm.ko', size: 0x2f8dc8, modules: ['vmm'] },
  pf: { file: 'pf.ko', size: 0x64ff8, modules: ['pf', 'pflog'] },
  ipfw: { file: 'ipfw.ko', size: 0x3a1e0, modules: ['ipfw', 'ipfw_nat'] },
  nmdm: { file: 'nmdm.ko', size: 0x2b58, modules: ['nmdm'] },
  if_bridge: { file: 'if_bridge.ko', size: 0x7d88, modules: ['if_bridge'] },
};

type WithKmods = SimHost & { loadedKmods?: string[] };

/**
 * zfs(8) and zpool(8) load zfs.ko when it is not loaded: main() calls libzfs_init(), whose
 * libzfs_load_module() kldloads it (openzfs lib/libzfs/os/freebsd/libzfs_compat.c) — so running either is
 * not read-only on a host without ZFS.
 */
/** zfs.ko loaded at boot: a host with ZFS (an ARC), or zfs_load="YES" from the loader */
const zfsAtBoot = (state: SimHost) => Boolean(state.arc) || /^yes$/i.test(state.kenv?.zfs_load ?? '');
const loadZfs = (state: SimHost) => {
  const s = state as WithKmods;
  if (zfsAtBoot(state) || (s.loadedKmods ?? []).includes('zfs')) return;
  s.loadedKmods = [...(s.loadedKmods ?? []), 'zfs'];
};
registerInvokeHook('zfs', loadZfs);
registerInvokeHook('zpool', loadZfs);
// a reboot unloads what was kldloaded since the last one
registerBootHook('kmods', (state) => {
  if ((state as WithKmods).loadedKmods) delete (state as WithKmods).loadedKmods;
});

export function loadedFiles(state: SimHost): Kld[] {
  const out: Kld[] = [{ file: 'kernel', size: 0x1f30590, modules: ['ctl', 'cam', 'racct', 'if_tap', 'if_epair'] }];
  // a host with ZFS (an ARC) loaded zfs.ko at boot; one without has it once zfs or zpool ran
  if (zfsAtBoot(state) || (state as WithKmods).loadedKmods?.includes('zfs')) out.push({ file: 'zfs.ko', size: 0x5a8960, modules: ['zfsctrl', 'zfs'] });
  const kenv = state.kenv ?? {};
  for (const [key, value] of Object.entries(kenv)) {
    const m = /^(.+)_load$/.exec(key);
    if (!m || !/^yes$/i.test(value) || m[1] === 'zfs') continue;
    out.push(KNOWN[m[1]] ?? { file: `${m[1]}.ko`, size: 0x4000, modules: [m[1]] });
  }
  if (rcEnabled(state, 'pf_enable') && !out.some((k) => k.file === 'pf.ko')) out.push(KNOWN.pf);
  if (rcEnabled(state, 'firewall_enable') && !out.some((k) => k.file === 'ipfw.ko')) out.push(KNOWN.ipfw);
  return out;
}

const address = (i: number) => `0x${(0xffffffff80200000n + BigInt(i) * 0x1000000n).toString(16)}`;
const USAGE = 'usage: kldstat [-dhqv] [-i id] [-n filename]\n       kldstat [-dq] [-m modname]\n';

registerCommand('kldstat', (ctx) => {
  let o: ParsedOptions;
  try {
    o = getopt(ctx.args, 'dhi:m:n:qv');
  } catch (e) {
    // usage(): to stderr, exit(1)
    if (e instanceof UsageError) return { code: 1, stderr: `${e.message}\n${USAGE}` };
    throw e;
  }
  const files = loadedFiles(ctx.state);
  const modname = o.values.get('m');
  if (modname !== undefined) {
    const i = files.findIndex((f) => f.modules.includes(modname));
    if (i < 0) return { code: 1, stderr: o.flags.has('q') ? '' : `kldstat: can't find module ${modname}: No such file or directory\n` };
    if (o.flags.has('q')) return {};
    const id = files.slice(0, i).reduce((n, f) => n + f.modules.length, 0) + files[i].modules.indexOf(modname) + 1;
    return { stdout: `Id  Refs Name\n${String(id).padStart(3)} ${String(1).padStart(4)} ${modname}\n` };
  }
  const lines = files.map(
    (f, i) => `${String(i + 1).padStart(2)} ${String(i === 0 ? files.length : 1).padStart(4)} ${address(i)} ${f.size.toString(16).padEnd(8)} ${f.file}`,
  );
  return { stdout: `Id Refs Address                Size Name\n${lines.join('\n')}\n` };
});
