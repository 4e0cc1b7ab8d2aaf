import { InventoryCollector } from '#agent/collectors/inventory-collector';
import { collectInventory } from '#agent/collectors/inventory';
import { readFileSync, writeFileSync } from 'node:fs';
import { runChecked, type Executor } from '#agent/executors/executor';
import type { SimHost } from '#shared/seed/host/schema';
import { demoHost, simulate, type TestHost } from '../simulator/sim-helper.ts';

/** The simulated host behind an executor that lists the commands run through it. */
function counted(h: TestHost): { exec: Executor; calls: string[][] } {
  const calls: string[][] = [];
  return {
    calls,
    exec: { kind: 'simulator', run: (argv, o) => (calls.push(argv), h.exec.run(argv, o)) },
  };
}

const SWEEP_MS = 600_000;

/** A dataset made on the host behind the agent's back (the simulator's state, as `zfs create` would leave it). */
function createDatasetByHand(h: TestHost, name: string): void {
  const state = JSON.parse(readFileSync(h.statePath, 'utf8')) as SimHost;
  state.datasets.push({ name, type: 'filesystem', usedBytes: 98304, referencedBytes: 98304, mountpoint: `/${name}` });
  writeFileSync(h.statePath, JSON.stringify(state));
}

describe('inventory collector between full sweeps', () => {
  it('sweeps every section first, then collects only what is checked every time while nothing changed', async () => {
    const h = simulate(demoHost());
    const { exec, calls } = counted(h);
    const c = new InventoryCollector(exec, { sweepIntervalMs: SWEEP_MS, now: h.now });
    const first = await c.collect();
    expect(c.lastCollected).toEqual(['pools', 'datasets', 'snapshots', 'tunables', 'jails', 'vms', 'pciDevices', 'users', 'groups', 'routes', 'capabilities']);
    // what a one-shot collection of every section reports
    expect(first).toEqual(await collectInventory(h.exec));
    const sweepCommands = calls.length;
    calls.length = 0;
    h.advance(60_000);
    const second = await c.collect();
    expect(c.lastCollected).toEqual(['datasets']);
    expect(second).toEqual(first);
    // the identity, the datasets and the probes (zpool status and the GEOM tree, jls, the jail confs, virsh list,
    // the VM registrations)
    expect(calls.map((a) => a[0]).sort()).toEqual(['jls', 'ls', 'ls', 'sysctl', 'sysctl', 'virsh', 'zfs', 'zpool']);
    expect(calls.length).toBeLessThan(sweepCommands / 3);
  });

  it('collects a section again when its probe changed, and only that one', async () => {
    const h = simulate(demoHost(), { resilverMs: 5_000 });
    const c = new InventoryCollector(h.exec, { sweepIntervalMs: SWEEP_MS, now: h.now });
    await c.collect();
    // done by hand on the host, not by a task
    await runChecked(h.exec, ['zpool', 'replace', 'tank', 'da1', 'da4']);
    createDatasetByHand(h, 'tank/by-hand');
    // the next check comes while the resilver (5 s here) runs
    h.advance(1_000);
    const inv = await c.collect();
    expect(c.lastCollected).toEqual(['pools', 'datasets']);
    expect(inv.pools!.find((p) => p.name === 'tank')!.vdevs[0].children![1]).toMatchObject({ name: 'replacing-1', type: 'replacing' });
    expect(inv.disks).toEqual(['da3', 'da5']);
    expect(inv.datasets!.map((d) => d.name)).toContain('tank/by-hand');
    // the resilver finishing changes zpool status again
    h.advance(60_000);
    const after = await c.collect();
    expect(c.lastCollected).toEqual(['pools', 'datasets']);
    expect(after.pools!.find((p) => p.name === 'tank')!.vdevs[0].children!.map((v) => v.name)).toEqual(['da0', 'da4', 'da2']);
    h.advance(60_000);
    await c.collect();
    expect(c.lastCollected).toEqual(['datasets']);
  });

  it('picks up what no probe watches at the next full sweep, or at once when asked for a full check', async () => {
    const h = simulate(demoHost());
    const c = new InventoryCollector(h.exec, { sweepIntervalMs: SWEEP_MS, now: h.now });
    await c.collect();
    await runChecked(h.exec, ['pw', 'groupadd', 'by-hand']);
    h.advance(SWEEP_MS - 1);
    const before = await c.collect();
    expect(c.lastCollected).toEqual(['datasets']);
    expect(before.groups!.map((g) => g.name)).not.toContain('by-hand');
    // the safety net: the last sweep is now sweepIntervalMs old
    h.advance(1);
    const swept = await c.collect();
    expect(c.lastCollected).toHaveLength(11);
    expect(swept.groups!.map((g) => g.name)).toContain('by-hand');
    // after a task the agent asks for a full check, whatever the clock says
    await runChecked(h.exec, ['pw', 'groupadd', 'by-task']);
    h.advance(1_000);
    const full = await c.collect(true);
    expect(c.lastCollected).toHaveLength(11);
    expect(full.groups!.map((g) => g.name)).toContain('by-task');
  });

  it('tries a failed section again at the next check, and reports it once it works', async () => {
    const h = simulate(demoHost());
    let broken = true;
    const exec: Executor = {
      kind: 'simulator',
      run: (argv, o) => (broken && argv[0] === 'pw' ? Promise.resolve({ code: 1, stdout: '', stderr: 'pw: out of memory\n' }) : h.exec.run(argv, o)),
    };
    const c = new InventoryCollector(exec, { sweepIntervalMs: SWEEP_MS, now: h.now });
    const first = await c.collect();
    expect(first.collectErrors).toEqual(['users: pw: out of memory', 'groups: pw: out of memory']);
    broken = false;
    h.advance(60_000);
    const second = await c.collect();
    expect(c.lastCollected).toEqual(['datasets', 'users', 'groups']);
    expect(second.collectErrors).toBeUndefined();
    expect(second.users).toEqual(first.users ?? (await collectInventory(h.exec)).users);
  });
});
