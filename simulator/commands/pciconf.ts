import { getopt } from '../format.ts';
import { fail, registerCommand, withUsage, type CommandContext } from '../registry.ts';
import type { SimPciDevice } from '#shared/seed/host/schema';

/**
 * pciconf(8) `-l [-v]` from the host's `pciDevices`, in FreeBSD 14's format (see the pciconf samples in
 * test/fixtures/freebsd): `<driver><unit>@pci<domain>:<bus>:<slot>:<function>:`, a TAB, `class=0x… rev=0x…
 * hdr=0x… vendor=0x… device=0x… subvendor=0x… subdevice=0x…`; with `-v` the indented `vendor`, `device`,
 * `class` and `subclass` lines pciconf knows names for. A device operand narrows the list to that device.
 */
const USAGE = [
  '\tpciconf -l [-BbcevV] [device]',
  '\tpciconf -a device',
  '\tpciconf -r [-b | -h] device addr[:addr2]',
  '\tpciconf -w [-b | -h] device addr value',
  '\tpciconf -D [-b | -h | -x] device [bar]',
].join('\n');

export const pciDevicesOf = (ctx: Pick<CommandContext, 'state'>): SimPciDevice[] => (ctx.state as { pciDevices?: SimPciDevice[] }).pciDevices ?? [];

export const pciSelector = (d: SimPciDevice) => `${d.driver}${d.unit}@pci${d.domain ?? 0}:${d.bus}:${d.slot}:${d.function}`;

function line(d: SimPciDevice): string {
  const hdr = d.hdr ?? (d.class.startsWith('0x0604') ? '0x01' : '0x00');
  return `${pciSelector(d)}:\tclass=${d.class} rev=${d.rev ?? '0x00'} hdr=${hdr} vendor=${d.vendorId} device=${d.deviceId} subvendor=${d.subvendorId ?? d.vendorId} subdevice=${d.subdeviceId ?? d.deviceId}\n`;
}

function verbose(d: SimPciDevice): string {
  let out = '';
  if (d.vendor !== undefined) out += `    vendor     = '${d.vendor}'\n`;
  if (d.device !== undefined) out += `    device     = '${d.device}'\n`;
  if (d.className !== undefined) out += `    class      = ${d.className}\n`;
  if (d.subclass !== undefined) out += `    subclass   = ${d.subclass}\n`;
  return out;
}

/** A device operand as pciconf takes it: `pci<d>:<b>:<s>:<f>`, `pci<b>:<s>:<f>` or the driver's name (`ppt0`). */
function matches(d: SimPciDevice, operand: string): boolean {
  const sel = /^pci(?:([0-9]+):)?([0-9]+):([0-9]+):([0-9]+):?$/.exec(operand);
  if (sel) return (d.domain ?? 0) === Number(sel[1] ?? 0) && d.bus === Number(sel[2]) && d.slot === Number(sel[3]) && d.function === Number(sel[4]);
  return `${d.driver}${d.unit}` === operand;
}

registerCommand(
  'pciconf',
  withUsage((ctx) => {
    const o = getopt(ctx.args, 'aBbcDehlrVvwx');
    if (!o.flags.has('l')) return fail(`usage:\n${USAGE}`);
    const [operand] = o.operands;
    let devices = pciDevicesOf(ctx);
    if (operand !== undefined) {
      devices = devices.filter((d) => matches(d, operand));
      if (!devices.length) return fail(`pciconf: ${operand}: No such file or directory`);
    }
    return { stdout: devices.map((d) => line(d) + (o.flags.has('v') ? verbose(d) : '')).join('') };
  }, USAGE),
);
