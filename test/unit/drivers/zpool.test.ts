import { CommandError, runChecked } from '#agent/executors/executor';
import {
  listPools,
  parseZpoolIostat,
  parseZpoolList,
  parseZpoolStatus,
  poolGuid,
  poolIostat,
  poolStatus,
  replaceDevice,
  resilverProgress,
  vdevs,
  ZPOOL_LIST_DEFAULT_COLUMNS,
} from '#agent/drivers/zfs/pools';
import { demoHost, fixture, simulate, T0 } from '../simulator/sim-helper.ts';

describe('zpool list parser (verbatim samples)', () => {
  it('reads FreeBSD 14 -Hp -o output', () => {
    const [row] = parseZpoolList(fixture('zpool-list-Hp-o-freebsd14.txt'), [
      'name',
      'health',
      'size',
      'alloc',
      'free',
      'fragmentation',
      'capacity',
      'dedupratio',
    ]);
    expect(row).toEqual({
      name: 'zroot',
      health: 'ONLINE',
      size: 67108864000,
      allocated: 11959578624,
      free: 55149285376,
      fragmentation: 4,
      capacity: 17,
      dedupRatio: 1,
    });
  });

  it('reads legacy units (FreeNAS frag %, dedup x) and the default columns of 11.2', () => {
    const freenas = parseZpoolList(fixture('zpool-list-Hp-o-freenas.txt'), [
      'name',
      'health',
      'size',
      'alloc',
      'free',
      'fragmentation',
      'capacity',
      'dedupratio',
    ]);
    expect(freenas.map((r) => [r.name, r.fragmentation, r.capacity, r.dedupRatio])).toEqual([
      ['freenas-boot', null, 6, 1],
      ['red1', 8, 12, 1.83],
      ['temp1', 38, 54, 1.28],
      ['temp2', 12, 20, 1],
    ]);
    const legacy = parseZpoolList(fixture('zpool-list-Hp-freebsd112.txt'), ZPOOL_LIST_DEFAULT_COLUMNS);
    expect(legacy.map((r) => [r.name, r.size, r.fragmentation, r.capacity, r.dedupRatio, r.health])).toEqual([
      ['data', 996432412672, 1, 1, 1, 'ONLINE'],
      ['zroot', 117037858816, 4, 8, 1, 'ONLINE'],
    ]);
  });

  it('reads an UNAVAIL pool whose numbers are dashes as nulls', () => {
    const [row] = parseZpoolList(fixture('zpool-list-Hp-o-unavail.txt'), [
      'name',
      'health',
      'size',
      'alloc',
      'free',
      'fragmentation',
      'capacity',
      'dedupratio',
    ]);
    expect(row.health).toBe('UNAVAIL');
    expect(row.size).toBeNull();
    expect(row.fragmentation).toBeNull();
  });
});

describe('zpool status parser (verbatim samples)', () => {
  it('reads a healthy mirror tree', () => {
    const [s] = parseZpoolStatus(fixture('zpool-status-healthy-mirror.txt'));
    expect(s.pool).toBe('mypool');
    expect(s.state).toBe('ONLINE');
    expect(s.scan.state).toBe('none');
    expect(s.root.children.map((c) => c.name)).toEqual(['mirror-0']);
    expect(s.root.children[0].children.map((c) => [c.name, c.state, c.read, c.write, c.cksum])).toEqual([
      ['ada1', 'ONLINE', 0, 0, 0],
      ['ada2', 'ONLINE', 0, 0, 0],
    ]);
    expect(s.errors).toBe('No known data errors');
  });

  it('reads a missing device by GUID with its last path, and the status/action text', () => {
    const [s] = parseZpoolStatus(fixture('zpool-status-degraded-unavail.txt'));
    const missing = s.root.children[0].children[1];
    expect(missing).toMatchObject({ name: '316502962686821739', state: 'UNAVAIL', note: 'was /dev/ada1p3' });
    expect(s.status).toMatch(/^One or more devices could not be opened\. +Sufficient replicas exist for the pool/);
    expect(s.action).toBe("Attach the missing device and online it using 'zpool online'.");
    expect(s.see).toBe('http://illumos.org/msg/ZFS-8000-2Q');
  });

  it('follows a replace: replacing-N children, (resilvering) and the percentage', () => {
    const [s] = parseZpoolStatus(fixture('zpool-status-resilvering-replacing-unavail.txt'));
    const replacing = s.root.children[0].children[1];
    expect(replacing.name).toBe('replacing-1');
    expect(replacing.children.map((c) => [c.name, c.note])).toEqual([
      ['15732067398082357289', 'was /dev/ada1p3/old'],
      ['ada2p3', '(resilvering)'],
    ]);
    expect(s.scan).toMatchObject({ function: 'resilver', state: 'in_progress', percentDone: 82.04, at: 'Mon Jun  2 14:52:21 2014', processed: '640M' });
    expect(resilverProgress(s)).toEqual({ running: true, percent: 82.04, replacing: true, done: false, errors: null });

    const [online] = parseZpoolStatus(fixture('zpool-status-resilvering-replacing-online.txt'));
    expect(resilverProgress(online).percent).toBe(77.39);
    const [attach] = parseZpoolStatus(fixture('zpool-status-resilvering-attach.txt'));
    expect(resilverProgress(attach)).toMatchObject({ running: true, percent: 67.53, replacing: false });
  });

  it('reads finished resilvers, old and OpenZFS 2.x wording', () => {
    const [old] = parseZpoolStatus(fixture('zpool-status-resilver-completed.txt'));
    expect(old.scan).toMatchObject({ function: 'resilver', state: 'finished', processed: '781M', errors: 0, at: 'Mon Jun  2 14:52:38 2014' });
    expect(resilverProgress(old)).toEqual({ running: false, percent: 100, replacing: false, done: true, errors: 0 });
    const [z22] = parseZpoolStatus(fixture('zpool-status-faulted-openzfs22-linux.txt'));
    expect(z22.scan).toMatchObject({ function: 'resilver', state: 'finished', processed: '2.28M', errors: 0 });
    const faulted = z22.root.children[0].children[1];
    expect([faulted.state, faulted.read, faulted.write, faulted.cksum, faulted.note]).toEqual(['FAULTED', 12, 753, 83, 'too many errors']);
  });

  it('reads the OpenZFS 2.0 and 2.2 progress lines (partial samples without a config table)', () => {
    const [z20] = parseZpoolStatus(fixture('zpool-status-resilver-scanlines-openzfs20-linux.txt'));
    expect(z20.pool).toBe('xpool2');
    expect(z20.scan).toMatchObject({ state: 'in_progress', percentDone: 1.5, toGo: '4 days 02:06:31', processed: '77.3G' });
    const [z22] = parseZpoolStatus(fixture('zpool-status-resilver-scanlines-openzfs22-linux.txt'));
    expect(z22.scan).toMatchObject({ function: 'resilver', state: 'in_progress', percentDone: 81.21, toGo: '07:21:15', processed: '43.4T' });
  });

  it('reads scrubs, raidz trees, real TABs and the old "scrub:" key', () => {
    const [scrub] = parseZpoolStatus(fixture('zpool-status-scrub-in-progress.txt'));
    expect(scrub.scan).toMatchObject({ function: 'scrub', state: 'in_progress', percentDone: 1.32 });
    expect(scrub.root.children[0].children).toHaveLength(6);
    const [done] = parseZpoolStatus(fixture('zpool-status-healthy-raidz2.txt'));
    expect(done.scan).toMatchObject({ function: 'scrub', state: 'finished', errors: 0 });
    const [offline] = parseZpoolStatus(fixture('zpool-status-x-degraded-offline.txt'));
    expect(offline.scan.state).toBe('none');
    expect(offline.root.children[0].name).toBe('raidz1');
    expect(offline.root.children[0].children.map((c) => `${c.name}:${c.state}`)).toEqual(['da0:ONLINE', 'da1:OFFLINE', 'da2:ONLINE']);
    expect(parseZpoolStatus(fixture('zpool-status-x-healthy.txt'))).toEqual([]);
  });
});

describe('zpool iostat parser', () => {
  it('reads the human table of zpool iostat (and skips vdev rows of -v)', () => {
    expect(parseZpoolIostat(fixture('zpool-iostat.txt'))).toEqual([
      {
        name: 'data',
        allocated: 288 * 2 ** 30,
        free: Math.round(1.53 * 2 ** 40),
        readOps: 2,
        writeOps: 11,
        readBytes: Math.round(11.3 * 1024),
        writeBytes: Math.round(57.1 * 1024),
      },
    ]);
    expect(parseZpoolIostat(fixture('zpool-iostat-v.txt')).map((r) => r.name)).toEqual(['data']);
  });

  it('reads the -l latency columns in their header order', () => {
    const [row] = parseZpoolIostat(fixture('zpool-iostat-l-linux.txt'));
    expect(row).toMatchObject({
      name: 'tank',
      readOps: 4,
      writeOps: 91,
      totalWaitRead: 881,
      totalWaitWrite: 56,
      diskWaitRead: 553,
      diskWaitWrite: 16,
      syncqWaitRead: 42,
      syncqWaitWrite: null,
      asyncqWaitRead: 1000,
      asyncqWaitWrite: 50,
      scrubWait: 175,
    });
    expect(row.trimWait).toBeUndefined();
  });
});

describe('zpool driver against the simulator', () => {
  it('lists pools with GUIDs exactly as the seed describes them', async () => {
    const h = simulate(demoHost());
    const pools = await listPools(h.exec);
    expect(pools.map((p) => [p.name, p.guid, p.health, p.fragmentation, p.dedupRatio])).toEqual([
      // zpool list orders pools by name, as real OpenZFS does
      ['tank', '11883512960153316402', 'ONLINE', 12, 1],
      ['zroot', '5871299349428123507', 'ONLINE', 7, 1],
    ]);
    const tank = pools[0];
    expect(tank.allocated).toBe(5609227485184);
    expect(tank.size! - tank.allocated!).toBe(tank.free);
    expect(await poolGuid(h.exec, 'tank')).toBe('11883512960153316402');
  });

  it('parses the simulated status tree and its -g twin position by position', async () => {
    const h = simulate(demoHost());
    const named = await poolStatus(h.exec, 'tank');
    const byGuid = await poolStatus(h.exec, 'tank', { guids: true });
    expect(named.root.children[0].children.map((c) => c.name)).toEqual(['da0', 'da1', 'da2']);
    expect(named.sections.cache.map((c) => c.name)).toEqual(['nvd0']);
    // zpool status -g still names the root vdev by the pool's name (real OpenZFS 2.3.2 does)
    expect(byGuid.root.name).toBe('tank');
    expect(byGuid.root.children[0].children.map((c) => c.name)).toEqual(['13720469051239842911', '1204986535522409731', '8356247186540920375']);
  });

  it('replaces a device and follows the resilver to the end through status', async () => {
    const h = simulate(demoHost(), { resilverMs: 10_000 });
    await replaceDevice(h.exec, 'tank', 'da1', 'da3');
    let last = -1;
    for (let step = 0; step < 4; step++) {
      h.advance(2_000);
      const p = resilverProgress(await poolStatus(h.exec, 'tank'));
      expect(p.running).toBe(true);
      expect(p.replacing).toBe(true);
      expect(p.percent!).toBeGreaterThan(last);
      last = p.percent!;
    }
    expect(last).toBeCloseTo(80, 0);
    h.advance(2_001);
    // resilvered, but OpenZFS detaches the old device from its async thread a moment later: both still shown
    const detaching = await poolStatus(h.exec, 'tank');
    expect(resilverProgress(detaching)).toEqual({ running: false, percent: 100, replacing: true, done: false, errors: 0 });
    expect(detaching.root.children[0].children[1].children.map((c) => [c.name, c.note ?? ''])).toEqual([
      ['da1', ''],
      ['da3', ''],
    ]);
    h.advance(1_000);
    const after = await poolStatus(h.exec, 'tank');
    expect(resilverProgress(after)).toEqual({ running: false, percent: 100, replacing: false, done: true, errors: 0 });
    expect(after.root.children[0].children.map((c) => c.name)).toEqual(['da0', 'da3', 'da2']);
    expect(after.scan.processed).toMatch(/^\d+(\.\d+)?[KMGT]$/);
  });

  it('runs a seeded scrub to its end, and a raidz member resilvers its share', async () => {
    const seed = demoHost();
    seed.pools[0].scan = { function: 'scrub', state: 'scanning', startMs: T0 - 5_000, endMs: T0 + 5_000 };
    const h = simulate(seed, { resilverMs: 1_000 });
    const during = await poolStatus(h.exec, 'zroot');
    expect(during.scan).toMatchObject({ function: 'scrub', state: 'in_progress', percentDone: 50 });
    expect(resilverProgress(during)).toMatchObject({ running: false, replacing: false, done: false });
    await replaceDevice(h.exec, 'tank', 'da0', 'da3');
    h.advance(5_000);
    expect((await poolStatus(h.exec, 'zroot')).scan).toMatchObject({ function: 'scrub', state: 'finished', processed: '0B', errors: 0 });
    // 5.10T on the raidz1 of three disks: the new disk gets a third
    expect((await poolStatus(h.exec, 'tank')).scan).toMatchObject({ function: 'resilver', state: 'finished', processed: '1.70T' });
  });

  it("fails a replace with zpool's own message", async () => {
    const h = simulate(demoHost());
    const msg = (p: Promise<unknown>) =>
      p.then(
        () => 'ok',
        (e) => (e instanceof CommandError ? e.message : `not a CommandError: ${e}`),
      );
    expect(await msg(replaceDevice(h.exec, 'tank', 'da9', 'da3'))).toBe('cannot replace da9 with da3: no such device in pool');
    expect(await msg(replaceDevice(h.exec, 'tank', 'da1', 'da0'))).toBe(
      "invalid vdev specification\nuse '-f' to override the following errors:\n/dev/da0 is part of active pool 'tank'",
    );
    expect(await msg(replaceDevice(h.exec, 'tank', 'da1', 'da5'))).toBe('cannot replace da1 with da5: device is too small');
    expect(await msg(replaceDevice(h.exec, 'nope', 'da1', 'da3'))).toBe("cannot open 'nope': no such pool");
  });

  it('reads -Hpl iostat with raw latencies from the simulator', async () => {
    const h = simulate(demoHost());
    const sinceBoot = await poolIostat(h.exec);
    const tank = sinceBoot.find((r) => r.name === 'tank')!;
    // since boot: exactly the seeded averages
    expect(tank).toMatchObject({ readOps: 420, writeOps: 180, readBytes: 50331648, writeBytes: 23068672, totalWaitRead: 4200000, totalWaitWrite: 7500000 });
    expect(tank.scrubWait).toBeNull();
    expect(tank.rebuildWait).toBeNull();
    const window = await poolIostat(h.exec, { windowSeconds: 10 });
    const w = window.find((r) => r.name === 'tank')!;
    expect(w.readOps).toBeGreaterThan(420 * 0.7);
    expect(w.readOps).toBeLessThan(420 * 1.3);
    const raw = await runChecked(h.exec, ['zpool', 'iostat', '-Hpl', 'tank']);
    expect(raw.split('\n')[0].split('\t')).toHaveLength(18);
  });
});

describe('vdev walk', () => {
  it('visits every vdev depth first', () => {
    const [s] = parseZpoolStatus(fixture('zpool-status-resilvering-replacing-online.txt'));
    expect([...vdevs(s.root)].map((v) => v.name)).toEqual(['mypool', 'mirror-0', 'ada0p3', 'replacing-1', 'ada1p3', 'ada2p3']);
  });
});
