import { WORK, type Sequence, type Step } from './sequence.ts';

/** Pools on file vdevs: create, list, get, status, iostat, replace and resilver, detach, destroy, and their refusals. */
export const vdev = (n: number) => `${WORK}/d${n}`;
export const POOL_COLUMNS = 'name,guid,size,allocated,free,fragmentation,capacity,dedupratio,health';
/** vdev files d0…d(n-1) of 128M (over SPA_MINDEVSIZE, 64M) */
export const files = (n: number, size = '128M'): Step => ({ setup: ['truncate', '-s', size, ...Array.from({ length: n }, (_, i) => vdev(i))] });
export const pool = (name: string, n: number): Step => ({ run: ['zpool', 'create', name, vdev(n)] });

export const POOL_SEQUENCES: Sequence[] = [
  {
    id: 'pool-create-list',
    title: 'zpool create on a file, then list -Hp, get guid and status as the agent reads them',
    steps: [
      files(1),
      pool('tank', 0),
      { run: ['zpool', 'list', '-Hp', '-o', POOL_COLUMNS], numbers: true },
      { run: ['zpool', 'get', '-H', '-o', 'value', 'guid', 'tank'] },
      { run: ['zpool', 'status', 'tank'] },
      { run: ['zpool', 'status', '-g', 'tank'] },
      { run: ['zpool', 'status'] },
    ],
  },
  {
    id: 'pool-two-pools',
    title: 'two pools: list and status order',
    steps: [
      files(2),
      pool('tank', 0),
      pool('bk', 1),
      { run: ['zpool', 'list', '-Hp', '-o', POOL_COLUMNS], numbers: true },
      { run: ['zpool', 'status'] },
      { run: ['zfs', 'list', '-Hp', '-o', 'name,type,used,avail,refer,volsize', '-t', 'filesystem,volume'] },
    ],
  },
  {
    id: 'pool-create-mountpoint',
    title: 'zpool create -o failmode=continue -o cachefile=none -m (the host-check scratch pool) and its mountpoint',
    steps: [
      files(1),
      { run: ['zpool', 'create', '-o', 'failmode=continue', '-o', 'cachefile=none', '-m', `${WORK}/mnt`, 'scratch', vdev(0)] },
      { run: ['zfs', 'get', '-H', '-o', 'value', 'mountpoint', 'scratch'] },
      { run: ['zfs', 'list', '-H', '-t', 'filesystem', '-o', 'name,canmount,mounted', '-r', 'scratch'] },
      { run: ['zfs', 'snapshot', 'scratch@hm-check-1'] },
      { run: ['zfs', 'list', '-H', '-o', 'name', '-t', 'volume', '-r', 'scratch'] },
      { run: ['zpool', 'destroy', 'scratch'] },
      { run: ['zpool', 'list', '-Hp', '-o', POOL_COLUMNS], numbers: true },
    ],
  },
  {
    id: 'pool-create-refusals',
    title: 'zpool create refuses a missing file, a small one, a taken name and a device in use',
    steps: [
      files(2),
      { setup: ['truncate', '-s', '1M', `${WORK}/small`] },
      { run: ['zpool', 'create', 'tank', `${WORK}/none`] },
      { run: ['zpool', 'create', 'tank', `${WORK}/small`] },
      pool('tank', 0),
      { run: ['zpool', 'create', 'tank', vdev(1)] },
      { run: ['zpool', 'create', 'other', vdev(0)] },
    ],
  },
  {
    id: 'pool-destroy',
    title: 'zpool destroy, twice; status and get of a pool that is not there',
    steps: [
      files(1),
      pool('tank', 0),
      { run: ['zpool', 'destroy', 'tank'] },
      { run: ['zpool', 'destroy', 'tank'] },
      { run: ['zpool', 'status', 'tank'] },
      { run: ['zpool', 'get', '-H', '-o', 'value', 'guid', 'tank'] },
      { run: ['zfs', 'list', '-H', '-o', 'name', 'tank'] },
    ],
  },
  {
    id: 'pool-none',
    title: 'no pools at all: zpool list -Hp and zpool status',
    steps: [{ run: ['zpool', 'list', '-Hp', '-o', POOL_COLUMNS], numbers: true }, { run: ['zpool', 'status'] }, { run: ['zpool', 'iostat', '-Hpl'] }],
  },
  {
    id: 'pool-replace-resilver',
    title: 'zpool replace of a file vdev by another: resilver to completion, status before and after',
    steps: [
      files(2),
      pool('tank', 0),
      { run: ['zpool', 'replace', 'tank', vdev(0), vdev(1)] },
      // resilvered and the replaced device detached: OpenZFS detaches it from its async thread a moment after the
      // scan ends (dsl_scan.c dsl_scan_done → spa.c spa_vdev_resilver_done), so a status read in between shows both
      { until: ['zpool', 'status', 'tank'], match: /^(?![\s\S]*replacing-)[\s\S]*resilvered/ },
      { run: ['zpool', 'status', '-g', 'tank'] },
      { run: ['zpool', 'list', '-Hp', '-o', POOL_COLUMNS], numbers: true },
    ],
  },
  {
    id: 'pool-replace-refusals',
    title: 'zpool replace refuses an unknown pool, a device not in the pool, a missing new device, one in use',
    steps: [
      files(3),
      pool('tank', 0),
      pool('bk', 2),
      { run: ['zpool', 'replace', 'nope', vdev(0), vdev(1)] },
      { run: ['zpool', 'replace', 'tank', `${WORK}/d9`, vdev(1)] },
      { run: ['zpool', 'replace', 'tank', vdev(0), `${WORK}/none`] },
      { run: ['zpool', 'replace', 'tank', vdev(0), vdev(2)] },
    ],
  },
  {
    id: 'pool-detach-refusals',
    title: 'zpool detach of a device that is not in a mirror, of an unknown device and pool',
    steps: [
      files(2),
      pool('tank', 0),
      { run: ['zpool', 'detach', 'tank', vdev(0)] },
      { run: ['zpool', 'detach', 'tank', vdev(1)] },
      { run: ['zpool', 'detach', 'nope', vdev(0)] },
    ],
  },
  {
    id: 'pool-iostat',
    title: 'zpool iostat -Hpl for all pools, one pool, and a fresh interval (-y 1 1)',
    steps: [
      files(2),
      pool('tank', 0),
      pool('bk', 1),
      { run: ['zpool', 'iostat', '-Hpl'], numbers: true },
      { run: ['zpool', 'iostat', '-Hpl', 'tank'], numbers: true },
      { run: ['zpool', 'iostat', '-Hpl', '-y', 'tank', '1', '1'], numbers: true },
      { run: ['zpool', 'iostat', '-Hpl', 'nope'] },
    ],
  },
  {
    id: 'zfs-version',
    title: 'zfs version: userland line, then kernel module line',
    steps: [{ run: ['zfs', 'version'] }],
  },
];
