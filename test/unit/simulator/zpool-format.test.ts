import { runChecked } from '#agent/executors/executor';
import type { SimHost } from '#shared/seed/host/schema';
import { fixture, host, simulate, tabs } from './sim-helper.ts';

/** The simulator must print what real zpool prints: compared with verbatim samples, byte for byte where the sample allows. */

const block = (text: string, from: RegExp, to: RegExp) => {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => from.test(l));
  const end = lines.findIndex((l, i) => i > start && to.test(l));
  return lines.slice(start, end).join('\n');
};
const config = (text: string) => block(text, /^config:/, /^errors:/);
const statusAction = (text: string) => block(text, /^status:/, /^ *(see|scan|scrub|config):/);

const disk = (name: string, sizeBytes = 1e12) => ({ name, sizeBytes });
const leaf = (name: string, extra: object = {}) => ({ type: 'disk' as const, name, ...extra });

function mirrorHost(children: object[], extra: Partial<SimHost['pools'][number]> = {}, disks = ['ada0', 'ada1', 'ada2', 'ada3']): SimHost {
  return host({
    disks: disks.map((d) => disk(d)),
    pools: [{ name: 'mypool', vdevs: [{ type: 'mirror', children: children as never }], allocatedBytes: 781 * 2 ** 20, ...extra }],
  });
}

describe('zpool list', () => {
  it('prints the FreeBSD 14 sample byte for byte', async () => {
    const h = simulate(
      host({
        pools: [{ name: 'zroot', vdevs: [{ type: 'disk', name: 'ada0p4', sizeBytes: 67446100000 }], allocatedBytes: 11959578624, fragmentation: 4 }],
      }),
    );
    const out = await runChecked(h.exec, ['zpool', 'list', '-Hp', '-o', 'name,health,size,alloc,free,fragmentation,capacity,dedupratio']);
    expect(out).toBe(fixture('zpool-list-Hp-o-freebsd14.txt'));
  });

  it('answers zpool get guid in the -H forms', async () => {
    const h = simulate(host({ pools: [{ name: 'zroot', guid: '7300997414167702310', vdevs: [leaf('ada0', { sizeBytes: 1e11 })], allocatedBytes: 1e9 }] }));
    expect(await runChecked(h.exec, ['zpool', 'get', '-Hp', 'guid', 'zroot'])).toBe('zroot\tguid\t7300997414167702310\tdefault\n');
    expect(await runChecked(h.exec, ['zpool', 'get', '-H', '-o', 'value', 'guid', 'zroot'])).toBe('7300997414167702310\n');
    // the sample's columns for `zpool get all` (guid's source is "default" there)
    const all = await runChecked(h.exec, ['zpool', 'get', 'all', 'zroot']);
    expect(all.split('\n')[0]).toMatch(/^NAME +PROPERTY +VALUE +SOURCE$/);
    expect(all).toMatch(/^zroot +guid +7300997414167702310 +default$/m);
  });
});

describe('zpool status', () => {
  it('prints a healthy mirror like the handbook sample (TABs for its 8 spaces; a never-scanned pool has no scan line in OpenZFS 2.x)', async () => {
    const h = simulate(mirrorHost([leaf('ada1'), leaf('ada2')]));
    const expected = tabs(fixture('zpool-status-healthy-mirror.txt')).replace(/^  scan: none requested\n/m, '');
    expect(await runChecked(h.exec, ['zpool', 'status', 'mypool'])).toBe(expected);
  });

  it('lays out a replace in progress like the sample (replacing-1, (resilvering), column widths)', async () => {
    const h = simulate(mirrorHost([leaf('ada0p3', { sizeBytes: 1e12 }), leaf('ada1p3', { sizeBytes: 1e12 })], {}, ['ada0', 'ada1', 'ada2p3']));
    await runChecked(h.exec, ['zpool', 'replace', 'mypool', 'ada1p3', 'ada2p3']);
    const out = await runChecked(h.exec, ['zpool', 'status']);
    const sample = tabs(fixture('zpool-status-resilvering-replacing-online.txt'));
    expect(config(out)).toBe(config(sample));
    expect(statusAction(out)).toBe(statusAction(sample));
    // OpenZFS 2.2 progress lines
    h.advance(4_000);
    expect(await runChecked(h.exec, ['zpool', 'status'])).toMatch(
      /  scan: resilver in progress since .+\n\t\S+ \/ \S+ scanned at \S+\/s, \S+ \/ \S+ issued at \S+\/s\n\t\S+ resilvered, 40\.00% done, (\d\d:\d\d:\d\d to go|no estimated completion time)\n/,
    );
  });

  it('shows a missing device by GUID with its last path, and the could-not-be-opened status', async () => {
    const h = simulate(mirrorHost([leaf('ada0p3', { sizeBytes: 1e12 }), leaf('ada1p3', { sizeBytes: 1e12, guid: '316502962686821739', state: 'UNAVAIL' })]));
    const out = await runChecked(h.exec, ['zpool', 'status']);
    const sample = tabs(fixture('zpool-status-degraded-unavail.txt'));
    expect(config(out)).toBe(config(sample));
    expect(statusAction(out)).toBe(statusAction(sample));
    // OpenZFS moved the message pages
    expect(out).toMatch(/^   see: https:\/\/openzfs\.github\.io\/openzfs-docs\/msg\/ZFS-8000-2Q$/m);
    expect(out).toMatch(/^ state: DEGRADED$/m);
  });

  it('words an offline device and a finished resilver like the samples', async () => {
    const offline = simulate(
      host({
        disks: ['da0', 'da1', 'da2'].map((d) => disk(d)),
        pools: [{ name: 'storage', vdevs: [{ type: 'raidz1', children: [leaf('da0'), leaf('da1', { state: 'OFFLINE' }), leaf('da2')] }], allocatedBytes: 1e9 }],
      }),
    );
    const out = await runChecked(offline.exec, ['zpool', 'status', '-x']);
    expect(statusAction(out)).toBe(statusAction(fixture('zpool-status-x-degraded-offline.txt')));

    const end = new Date(2025, 6, 14, 23, 10, 20).getTime();
    const faulted = simulate(
      mirrorHost([leaf('ada0'), leaf('ada1', { state: 'FAULTED', errors: { read: 12, write: 753, cksum: 83 } })], {
        scan: { function: 'resilver', state: 'finished', startMs: end - 1000, endMs: end, processedBytes: 2390753, errors: 0 },
      }),
    );
    const text = await runChecked(faulted.exec, ['zpool', 'status']);
    const sample = tabs(fixture('zpool-status-faulted-openzfs22-linux.txt'));
    expect(block(text, /^status:/, /^config:/)).toBe(block(sample, /^status:/, /^config:/));
    expect(text).toMatch(/^\t    ada1 +FAULTED +12 +753 +83  too many errors$/m);
  });

  it('says all pools are healthy with -x, as zpool does', async () => {
    const h = simulate(mirrorHost([leaf('ada1'), leaf('ada2')]));
    expect(await runChecked(h.exec, ['zpool', 'status', '-x'])).toBe(fixture('zpool-status-x-healthy.txt'));
  });
});

describe('zpool replace errors', () => {
  it('cannot open a device that does not exist (sample)', async () => {
    const h = simulate(host({ disks: [disk('ada0')], pools: [{ name: 'fourbays', vdevs: [leaf('ada0')], allocatedBytes: 1 }] }));
    expect(await h.exec.run(['zpool', 'replace', 'fourbays', '12186307818742867296'])).toEqual({
      code: 1,
      stdout: '',
      stderr: fixture('zpool-replace-error-cannot-open.txt'),
    });
  });

  it('words the other refusals as the samples do', async () => {
    const h = simulate(
      host({
        disks: ['ada1', 'ada2', 'ada3', 'ada4'].map((d) => disk(d)),
        pools: [{ name: 'iocage', vdevs: [{ type: 'mirror', children: [leaf('ada2'), leaf('ada3')] }], allocatedBytes: 1 }],
      }),
    );
    const inPool = await h.exec.run(['zpool', 'replace', 'iocage', 'ada3', '/dev/ada2']);
    const sample = fixture('zpool-add-error-part-of-active-pool-freebsd.txt').split('\n');
    expect(inPool.stderr.split('\n').slice(0, 3)).toEqual(sample.slice(0, 3));
    const notInPool = await h.exec.run(['zpool', 'replace', 'iocage', 'ada1', 'ada4']);
    const shape = (s: string) => s.replace(/cannot replace \S+ with \S+:/, 'cannot replace OLD with NEW:');
    expect(shape(notInPool.stderr)).toBe(shape(fixture('zpool-replace-error-no-such-device-in-pool.txt')));
  });

  it('is busy when the new disk is held through one of its partitions', async () => {
    const h = simulate(
      host({
        disks: ['ada0', 'ada1', 'ada2'].map((d) => disk(d)),
        pools: [{ name: 'tank', vdevs: [{ type: 'mirror', children: [leaf('ada0p3', { sizeBytes: 1e11 }), leaf('ada1')] }], allocatedBytes: 1 }],
      }),
    );
    const res = await h.exec.run(['zpool', 'replace', 'tank', 'ada1', 'ada0']);
    // the 0.6 sample stops after "is busy"; OpenZFS 2.x libzfs goes on
    expect(fixture('zpool-replace-error-is-busy.txt')).toMatch(/^cannot replace (\S+) with (\S+): \2 is busy\n$/);
    expect(res.stderr).toBe('cannot replace ada1 with ada0: ada0 is busy, or device removal is in progress\n');
  });
});

describe('zpool iostat', () => {
  it('prints the -l header groups in the order of the sample', async () => {
    const h = simulate(
      host({
        pools: [
          {
            name: 'tank',
            vdevs: [leaf('ada0', { sizeBytes: 1e12 })],
            allocatedBytes: 1e11,
            io: { readOps: 4, writeOps: 91, readWaitNs: 881, writeWaitNs: 56 },
          },
        ],
      }),
    );
    const out = await runChecked(h.exec, ['zpool', 'iostat', '-l']);
    const sample = fixture('zpool-iostat-l-linux.txt').split('\n');
    const lines = out.split('\n');
    const upToScrub = (l: string) => l.slice(0, l.indexOf('scrub') + 5);
    expect(upToScrub(lines[0])).toBe(upToScrub(sample[0]));
    expect(lines[1].startsWith(sample[1].replace(/\s+wait$/, ''))).toBe(true);
    expect(lines[3]).toMatch(/^tank +93\.1G +834G +4 +91 +0 +0 +881ns +56ns/);
  });
});
