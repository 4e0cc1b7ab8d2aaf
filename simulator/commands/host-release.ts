import type { SimHost } from '#shared/seed/host/schema';
import { boot } from '../boot.ts';
import { getopt } from '../format.ts';
import { registerCommand, registerSubcommand, withUsage } from '../registry.ts';
import { registerSysctlProvider } from '../sysctl-tree.ts';
import { profileOf } from '../profiles.ts';

/**
 * The host's release facts from its profile (../profiles.ts) — kern.osrelease, kern.osreldate,
 * kern.racct.enable (a boot-time tunable: the kernel environment's value, else the profile's GENERIC default),
 * `zfs version` — and reboot(8) / `shutdown -r`, which boot the host again (../boot.ts).
 */
/** kern.racct.enable: the loader's value (a non-zero number is on), else the profile's GENERIC default. */
export function racctEnabled(state: SimHost): boolean {
  const racct = state.kenv?.['kern.racct.enable'];
  return racct === undefined ? profileOf(state).racctDefault === 1 : /^[1-9]/.test(racct);
}

registerSysctlProvider('release', (state) => {
  const p = profileOf(state);
  return [
    { name: 'kern.ostype', type: 'string', value: 'FreeBSD', writable: false, description: 'Operating system type' },
    { name: 'kern.osrelease', type: 'string', value: p.osrelease, writable: false, description: 'Operating system release' },
    { name: 'kern.osreldate', type: 'integer', value: String(p.osreldate), writable: false, description: 'Kernel release date' },
    {
      name: 'kern.racct.enable',
      type: 'uint8_t',
      value: racctEnabled(state) ? '1' : '0',
      writable: false,
      tunable: true,
      description: 'Enable RACCT/RCTL',
    },
  ];
});

// zfs_main.c zfs_do_version: userland line, then the kernel module's
registerSubcommand('zfs', 'version', (ctx) => {
  const v = profileOf(ctx.state).zfsVersion;
  return { stdout: `${v.userland}\n${v.kmod}\n` };
});

registerCommand(
  'reboot',
  withUsage((ctx) => {
    getopt(ctx.args, 'cdlNnpqr');
    boot(ctx.state, ctx.now);
    return {};
  }, 'usage: reboot [-cdlNnpqr]'),
);

registerCommand(
  'shutdown',
  withUsage((ctx) => {
    const o = getopt(ctx.args, 'chnopr');
    if (!o.flags.has('r') || o.operands[0] !== 'now') return { code: 1, stderr: 'shutdown: the simulator reboots only: shutdown -r now\n' };
    boot(ctx.state, ctx.now);
    return {};
  }, 'usage: shutdown [-] [-c | -h | -p | -r | -k] [-o [-n]] time [warning-message ...]'),
);
