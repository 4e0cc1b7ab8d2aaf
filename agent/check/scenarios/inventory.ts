import { collectInventory } from '../../collectors/inventory.ts';
import { collectTelemetry } from '../../collectors/telemetry.ts';
import type { Scenario } from '../runner.ts';

/**
 * Read-only: every inventory collector and its parsers (pools, datasets, jails, VMs, PCI, users and groups,
 * tunables, routes, capabilities) and the telemetry sample, as the agent reports them. A section that fails is
 * the scenario's failure — except the VMs of a host without libvirt, which the agent reports the same way.
 */
export const inventoryScenario: Scenario = {
  name: 'inventory',
  title: 'read-only: every inventory collector and parser, telemetry, capabilities',
  async run(ctx) {
    const inv = await collectInventory(ctx.exec);
    const errors = ((inv.collectErrors as string[] | undefined) ?? []).filter((e) => !(e.startsWith('vms:') && ctx.caps.libvirtVersion === null));
    if (errors.length) throw new Error(`inventory sections failed: ${errors.join('; ')}`);
    const t = await collectTelemetry(ctx.exec, { iostatWindowSeconds: 0 });
    const n = (v: unknown) => (Array.isArray(v) ? v.length : 0);
    const routes = inv.routes as unknown[] | undefined;
    return [
      `${inv.os} (${ctx.caps.osreldate}), ${inv.cpus} CPUs`,
      `${n(inv.pools)} pools, ${n(inv.datasets)} datasets, ${n(inv.jails)} jails, ${inv.vms === undefined ? 'no libvirt' : `${n(inv.vms)} VMs`}`,
      `${n(inv.pciDevices)} PCI devices, ${n(inv.users)} users, ${n(inv.groups)} groups, ${n(inv.tunables)} tunables, ${n(routes)} routing tables`,
      `telemetry ${t.pools.length} pools${t.arc ? ' + ARC' : ''}`,
    ].join('; ');
  },
};
