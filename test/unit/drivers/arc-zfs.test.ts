import { arcSample, parseArcstats, readArcstats } from '#agent/drivers/zfs/arcstats';
import { listDatasets, parseZfsList } from '#agent/drivers/zfs/datasets';
import { runChecked } from '#agent/executors/executor';
import { demoHost, fixture, host, simulate } from '../simulator/sim-helper.ts';

describe('arcstats', () => {
  it('reads FreeBSD 14 sysctl output and Linux kstat alike', () => {
    const bsd = parseArcstats(fixture('sysctl-kstat-zfs-misc-arcstats-freebsd14.txt'));
    expect(Object.keys(bsd)).toHaveLength(148);
    expect([bsd.hits, bsd.misses, bsd.size, bsd.c_max, bsd.demand_data_hits]).toEqual([1473806, 63001, 137512848, 3178811392, 566567]);
    const linux = parseArcstats(fixture('proc-spl-kstat-zfs-arcstats-linux.txt'));
    expect(linux.hits).toBeGreaterThan(0);
    expect(linux.c_max).toBeGreaterThan(0);
  });

  it('maps counters and sizes into the telemetry sample', () => {
    const s = arcSample(parseArcstats(fixture('sysctl-kstat-zfs-misc-arcstats-freebsd14.txt')), 0);
    expect(s.counters).toMatchObject({
      hits: 1473806,
      misses: 63001,
      demandHits: 566567 + 906938,
      demandMisses: 48482 + 12021,
      prefetchHits: 105 + 196,
      prefetchMisses: 2092 + 406,
      evictions: 90151,
      evictNotEnough: 12,
    });
    expect(s.sizes).toMatchObject({
      size: 137512848,
      targetSize: 176014976,
      minSize: 132892288,
      maxSize: 3178811392,
      dataSize: 56701440,
      metadataSize: 41935872,
      headerSize: 1872848,
      otherSize: 36376512,
      l2DeviceCount: 0,
    });
  });

  it('simulated arcstats print in the FreeBSD 14 order and their counters advance with time', async () => {
    const h = simulate(demoHost());
    const text = await runChecked(h.exec, ['sysctl', '-q', 'kstat.zfs.misc.arcstats']);
    const names = (t: string) =>
      t
        .split('\n')
        .filter(Boolean)
        .map((l) => l.split(':')[0]);
    expect(names(text)).toEqual(names(fixture('sysctl-kstat-zfs-misc-arcstats-freebsd14.txt')));
    const a = (await readArcstats(h.exec))!;
    h.advance(10_000);
    const b = (await readArcstats(h.exec))!;
    const hits = b.hits - a.hits;
    const misses = b.misses - a.misses;
    // 3200 accesses/s for 10 s at a hit ratio of 0.94 ± 0.04
    expect(hits + misses + (b.iohits - a.iohits)).toBeGreaterThan(31_000);
    expect(hits / (hits + misses)).toBeGreaterThan(0.89);
    expect(hits / (hits + misses)).toBeLessThan(0.99);
    expect(b.demand_data_hits + b.demand_metadata_hits + b.prefetch_data_hits + b.prefetch_metadata_hits).toBe(b.hits);
    expect(b.size).toBeLessThanOrEqual(b.c);
  });

  it('follows vfs.zfs.arc_max into c_max, and a host without ZFS has no arcstats', async () => {
    const h = simulate(demoHost());
    await runChecked(h.exec, ['sysctl', 'vfs.zfs.arc_max=8589934592']);
    expect((await readArcstats(h.exec))!.c_max).toBe(8589934592);
    expect(await readArcstats(simulate(host()).exec)).toBeNull();
  });
});

describe('zfs list', () => {
  it('reads -Hp rows by column (verbatim samples)', () => {
    const rows = parseZfsList(fixture('zfs-list-Hp-o-freebsd14.txt'), ['name', 'avail', 'used', 'usedsnap', 'usedds']);
    expect(rows).toHaveLength(14);
    expect(rows[2]).toEqual({ name: 'zroot/ROOT/default', avail: '53069045760', used: '4684689408', usedsnap: '-', usedds: '-' });
    const space = parseZfsList(fixture('zfs-list-Hp-o-space-freebsd.txt'), ['name', 'avail', 'used', 'usedsnap', 'usedds']);
    expect(space[3]).toEqual({ name: 'zata/storage', avail: '10741741326336', used: '8556084379648', usedsnap: '3601138999296', usedds: '4954945380352' });
  });

  it('lists the simulated filesystems and zvols with space and volsize', async () => {
    const h = simulate(demoHost());
    const list = await listDatasets(h.exec);
    expect(list.map((d) => d.name).slice(0, 4)).toEqual(['tank', 'tank/backups', 'tank/iscsi', 'tank/iscsi/lun0']);
    const lun = list.find((d) => d.name === 'tank/iscsi/lun0')!;
    expect(lun).toMatchObject({ type: 'volume', used: 107374051328, volsize: 107374182400 });
    expect(lun.available).toBeGreaterThan(0);
    expect(list.find((d) => d.name === 'zroot/home')).toMatchObject({ type: 'filesystem', used: 28454158336 });
    expect(list.find((d) => d.name === 'zroot/home')!.volsize).toBeUndefined();
    // the same command's space columns as the FreeBSD 14 sample: usedds = used - children - snapshots
    const out = await runChecked(h.exec, ['zfs', 'list', '-Hp', '-t', 'filesystem,volume', '-o', 'name,avail,used,usedsnap,usedds', 'tank/backups']);
    const [row] = parseZfsList(out, ['name', 'avail', 'used', 'usedsnap', 'usedds']);
    expect([row.used, row.usedsnap, row.usedds]).toEqual(['3563391340864', '41875931136', String(3563391340864 - 41875931136)]);
  });

  it('answers zfs get and unknown datasets like zfs', async () => {
    const h = simulate(demoHost());
    expect(await runChecked(h.exec, ['zfs', 'get', '-Hp', '-o', 'value', 'volsize', 'tank/vm/web01/disk0'])).toBe('21474836480\n');
    expect(await h.exec.run(['zfs', 'list', 'tank/nope'])).toEqual({ code: 1, stdout: '', stderr: "cannot open 'tank/nope': dataset does not exist\n" });
    expect((await h.exec.run(['zfs', 'list', '-o', 'name,bogus!'])).stderr).toBe("bad property list: invalid property 'bogus!'\n");
  });
});
