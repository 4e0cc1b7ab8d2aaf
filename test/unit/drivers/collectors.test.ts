import { collectInventory } from '#agent/collectors/inventory';
import { parseCpusetMask } from '#agent/drivers/cpuset';
import { freeDisks, poolScan, poolVdevs } from '#agent/collectors/pools';
import { collectTelemetry } from '#agent/collectors/telemetry';
import { parseZpoolStatus } from '#agent/drivers/zfs/pools';
import { runChecked } from '#agent/executors/executor';
import { demoHost, fixture, host, simulate } from '../simulator/sim-helper.ts';

describe('inventory collector', () => {
  it('reports identity, pools with vdev trees and GUIDs, free disks, datasets and tunables', async () => {
    // the release comes from the host's profile (kern.osrelease), not from a seeded sysctl
    const h = simulate({ ...demoHost(), profile: 'freebsd-14.3' });
    const inv = await collectInventory(h.exec);
    expect(inv).toMatchObject({ hostname: 'fbsd-demo-1.example.net', os: 'FreeBSD 14.3-RELEASE', cpus: 8, memoryBytes: 34259939328 });
    const tank = inv.pools!.find((p) => p.name === 'tank')!;
    expect(tank).toMatchObject({ guid: '11883512960153316402', health: 'ONLINE', allocated: 5609227485184 });
    expect(tank.vdevs).toEqual([
      {
        name: 'raidz1-0',
        type: 'raidz1',
        state: 'ONLINE',
        guid: '3948021775640128466',
        errors: { read: 0, write: 0, cksum: 0 },
        children: [
          { name: 'da0', type: 'disk', state: 'ONLINE', errors: { read: 0, write: 0, cksum: 0 }, guid: '13720469051239842911' },
          { name: 'da1', type: 'disk', state: 'ONLINE', errors: { read: 0, write: 0, cksum: 0 }, guid: '1204986535522409731' },
          { name: 'da2', type: 'disk', state: 'ONLINE', errors: { read: 0, write: 0, cksum: 0 }, guid: '8356247186540920375' },
        ],
      },
      {
        name: 'cache',
        type: 'cache',
        state: '-',
        children: [{ name: 'nvd0', type: 'disk', state: 'ONLINE', errors: { read: 0, write: 0, cksum: 0 }, guid: '17432006120941380517' }],
      },
    ]);
    // ada0/ada1 hold zroot's partitions, da0-2 and nvd0 are tank's
    expect(inv.disks).toEqual(['da3', 'da4', 'da5']);
    expect(inv.datasets!.find((d) => d.name === 'tank/vm/db01/disk0')).toMatchObject({ type: 'volume', volsize: 21474836480 });
    expect(inv.tunables!.find((t) => t.name === 'kern.maxfiles')).toMatchObject({ type: 'integer', writable: true });
    expect(inv.tunables!.find((t) => t.name === 'kern.ostype')).toMatchObject({ writable: false });
  });

  it('shows a replace in progress and its outcome', async () => {
    const h = simulate(demoHost(), { resilverMs: 5_000 });
    await runChecked(h.exec, ['zpool', 'replace', 'tank', 'da1', 'da4']);
    const during = await collectInventory(h.exec);
    const raidz = during.pools!.find((p) => p.name === 'tank')!.vdevs[0];
    expect(raidz.children![1]).toMatchObject({ name: 'replacing-1', type: 'replacing', children: [{ name: 'da1' }, { name: 'da4' }] });
    expect(raidz.children![1].children![1].guid).toMatch(/^\d+$/);
    expect(during.disks).toEqual(['da3', 'da5']);
    // the resilver's progress and the new device's note, as zpool status prints them
    const resilvering = during.pools!.find((p) => p.name === 'tank')!;
    expect(resilvering.scan).toMatchObject({ function: 'resilver', state: 'in_progress' });
    expect(resilvering.scan!.percentDone).toBeGreaterThanOrEqual(0);
    expect(resilvering.scan!.percentDone).toBeLessThan(100);
    expect(raidz.children![1].children![1]).toMatchObject({ name: 'da4', errors: { read: 0, write: 0, cksum: 0 }, note: '(resilvering)' });
    // the resilver's time, then the moment OpenZFS takes to detach the replaced device
    h.advance(6_000);
    const after = await collectInventory(h.exec);
    expect(after.pools!.find((p) => p.name === 'tank')!.scan).toMatchObject({ function: 'resilver', state: 'finished', percentDone: 100, errors: 0 });
    expect(after.pools!.find((p) => p.name === 'tank')!.vdevs[0].children!.map((c) => c.name)).toEqual(['da0', 'da4', 'da2']);
    expect(after.disks).toEqual(['da1', 'da3', 'da5']);
  });

  it('names a missing device by its last path, and leaves out a section whose commands fail', async () => {
    const [s] = parseZpoolStatus(fixture('zpool-status-degraded-unavail.txt'));
    expect(poolVdevs(s, undefined)[0].children!.map((c) => [c.name, c.state])).toEqual([
      ['ada0p3', 'ONLINE'],
      ['ada1p3', 'UNAVAIL'],
    ]);
    expect(poolVdevs(s, undefined)[0].children![1]).toMatchObject({ errors: { read: 0, write: 0, cksum: 0 }, note: 'was /dev/ada1p3' });
    expect(poolScan(s)).toEqual({});
    expect(freeDisks('ada3 ada2 ada1 ada0 cd0', ['ada0p3', 'ada1p3'])).toEqual(['ada2', 'ada3']);
    // GELI and label providers resolve through the GEOM tree, not by their names
    const geom = new Map([
      ['ada0p3.eli', 'ada0'],
      ['gpt/tank0', 'ada1'],
    ]);
    expect(freeDisks('ada2 ada1 ada0', ['ada0p3.eli', 'gpt/tank0'])).toEqual(['ada0', 'ada1', 'ada2']);
    expect(freeDisks('ada2 ada1 ada0', ['ada0p3.eli', 'gpt/tank0'], geom)).toEqual(['ada2']);
    // a section whose command fails is left out (the control plane keeps what it had), the rest is reported
    const h = simulate(demoHost());
    const broken = {
      kind: 'simulator' as const,
      run: (argv: string[], o?: { stdin?: string }) =>
        argv[0] === 'zfs' ? Promise.resolve({ code: 1, stdout: '', stderr: 'internal error: out of memory\n' }) : h.exec.run(argv, o),
    };
    const inv = await collectInventory(broken);
    expect(inv.datasets).toBeUndefined();
    expect(inv.snapshots).toBeUndefined();
    expect(inv.collectErrors).toEqual(['datasets: internal error: out of memory', 'snapshots: internal error: out of memory']);
    expect(inv.pools).toHaveLength(2);
    expect(inv.tunables!.length).toBeGreaterThan(10);
  });
});

describe('telemetry collector', () => {
  it('samples pools (list + iostat) and the ARC, counters advancing between samples', async () => {
    const h = simulate(demoHost());
    const a = await collectTelemetry(h.exec, { now: h.now });
    expect(a.time).toBe(h.now());
    expect(a.intervalSeconds).toBe(10);
    expect(a.pools.map((p) => [p.name, p.guid, p.health, p.fragmentation, p.dedupRatio])).toEqual([
      // zpool list orders pools by name, as real OpenZFS does
      ['tank', '11883512960153316402', 'ONLINE', 12, 1],
      ['zroot', '5871299349428123507', 'ONLINE', 7, 1],
    ]);
    const tank = a.pools[0];
    expect(tank.size).toBe(tank.allocated + tank.free);
    for (const k of ['readIOPS', 'writeIOPS', 'readBytesPerSecond', 'writeBytesPerSecond', 'readLatencyNanos', 'writeLatencyNanos'] as const)
      expect(tank[k]).toBeGreaterThan(0);
    expect(tank.readLatencyNanos).toBeGreaterThan(4_200_000 * 0.85);
    expect(a.arc!.sizes.l2DeviceCount).toBe(1);
    expect(a.arc!.sizes.l2Size).toBe(128849018880);
    h.advance(10_000);
    const b = await collectTelemetry(h.exec, { now: h.now });
    expect(b.arc!.counters.hits).toBeGreaterThan(a.arc!.counters.hits);
    expect(b.arc!.counters.l2Hits).toBeGreaterThan(a.arc!.counters.l2Hits);
  });

  it('reports no ARC on a host without ZFS and no pools when there are none', async () => {
    const s = await collectTelemetry(simulate(host()).exec);
    expect(s.pools).toEqual([]);
    expect(s.arc).toBeUndefined();
  });
});

describe('cpuset -g', () => {
  test("the CPU mask is printaffinity's first line, not the memory-domain line that also ends in 'mask: 0'", () => {
    expect(parseCpusetMask('jail 3 mask: 0, 1\njail 3 domain policy: first-touch mask: 0\n')).toEqual([0, 1]);
    expect(parseCpusetMask('jail 3 mask: 0\njail 3 domain policy: first-touch mask: 0\n')).toEqual([0]);
    expect(parseCpusetMask('pid 12 cpuset mask: 2, 3\n')).toEqual([2, 3]);
    expect(parseCpusetMask('jail 3 domain policy: first-touch mask: 0\n')).toBeNull();
  });
});
