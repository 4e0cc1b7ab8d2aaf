import { runChecked, type Executor } from '../executors/executor.ts';
import type { PciDeviceInventory } from '#shared/agent-api/inventory';

/**
 * pciconf(8) of FreeBSD: `pciconf -lv` lists every PCI device as one line
 * `<driver><unit>@pci<domain>:<bus>:<slot>:<function>:<TAB>class=0x… rev=0x… hdr=0x… vendor=0x… device=0x… …`
 * (`none<N>` when no driver claimed it), followed by indented `key = value` lines (`vendor = '…'`,
 * `device = '…'`, `class = network`, `subclass = ethernet`) for the names pciconf knows.
 */
const SELECTOR = /^([A-Za-z_][A-Za-z0-9_]*?)([0-9]+)@pci([0-9]+):([0-9]+):([0-9]+):([0-9]+):\s+(.*)$/;
const DETAIL = /^\s+(vendor|device|class|subclass)\s+=\s+(.*)$/;

const unquote = (v: string) => (v.length >= 2 && v.startsWith("'") && v.endsWith("'") ? v.slice(1, -1) : v);

export function parsePciconfList(stdout: string): PciDeviceInventory[] {
  const out: PciDeviceInventory[] = [];
  for (const line of stdout.split('\n')) {
    const head = SELECTOR.exec(line);
    if (head) {
      const fields = Object.fromEntries(
        head[7]
          .trim()
          .split(/\s+/)
          .map((kv) => kv.split('=') as [string, string]),
      );
      out.push({
        selector: line.split(/\s/)[0].replace(/:$/, ''),
        driver: head[1],
        unit: Number(head[2]),
        domain: Number(head[3]),
        bus: Number(head[4]),
        slot: Number(head[5]),
        function: Number(head[6]),
        class: fields.class ?? '',
        vendorId: fields.vendor ?? '',
        deviceId: fields.device ?? '',
      });
      continue;
    }
    const detail = DETAIL.exec(line);
    const last = out[out.length - 1];
    if (!detail || !last) continue;
    const value = unquote(detail[2].trim());
    if (detail[1] === 'vendor') last.vendor = value;
    else if (detail[1] === 'device') last.device = value;
    else if (detail[1] === 'class') last.className = value;
    else last.subclass = value;
  }
  return out;
}

/** The host's PCI devices (inventory section `pciDevices`). */
export async function listPciDevices(exec: Executor): Promise<PciDeviceInventory[]> {
  return parsePciconfList(await runChecked(exec, ['pciconf', '-lv']));
}
