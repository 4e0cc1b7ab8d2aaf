import { runScenarios } from '#agent/check/runner';
import { SCENARIOS } from '#agent/check/scenarios/index';
import { probeCapabilities } from '#agent/drivers/host-capabilities';
import { parseDfAvail } from '#agent/drivers/df';
import type { Executor } from '#agent/executors/executor';
import type { SimHost } from '#shared/seed/host/schema';
import { jailHost, simulatedHost } from '../helpers/simulated-host.ts';

/**
 * The kit's scratch pool: made only when /var/tmp has room for its files in full, with failmode=continue (a lost
 * file vdev returns EIO instead of blocking every I/O, the cleanup's zpool destroy too) and cachefile=none (not
 * imported again after a reboot mid-run).
 */
const MiB = 2 ** 20;
// the replacement's resilver: quick on the simulated host, followed every 100 ms
process.env.HM_SIM_RESILVER_MS = '300';
process.env.HM_RESILVER_POLL_MS = '100';

async function runScratchPool(seed: SimHost) {
  const exec = simulatedHost(seed);
  const argvs: string[][] = [];
  const recording: Executor = { kind: exec.kind, run: (argv, opts) => (argvs.push(argv), exec.run(argv, opts)) };
  const notes: string[] = [];
  const results = await runScenarios(
    recording,
    SCENARIOS.filter((s) => s.name === 'scratch-pool'),
    {
      options: { id: 's9p1', scratchPool: 'hm-check-s9p1', startVm: false, iscsi: false },
      caps: await probeCapabilities(exec),
      signal: new AbortController().signal,
      note: (l) => notes.push(l),
    },
  );
  return { exec, argvs, results };
}

test('the scratch pool is created with failmode=continue and cachefile=none after df showed room for its files', async () => {
  const { argvs, results } = await runScratchPool({ ...jailHost(), dirs: ['/var/tmp'] });
  expect(results.map((r) => [r.verdict, r.cleanupErrors])).toEqual([['ok', []]]);
  const at = (p: (a: string[]) => boolean) => argvs.findIndex(p);
  const df = at((a) => a[0] === 'df');
  const create = argvs[at((a) => a[0] === 'zpool' && a[1] === 'create')];
  expect(argvs[df]).toEqual(['df', '-k', '/var/tmp']);
  expect(df).toBeLessThan(at((a) => a[0] === 'truncate'));
  expect(create.slice(0, 6)).toEqual(['zpool', 'create', '-o', 'failmode=continue', '-o', 'cachefile=none']);
});

test('a /var/tmp without room for the files in full skips the scenario, naming the space, and creates nothing', async () => {
  // /var/tmp on a pool of a 256 MiB disk, most of it allocated
  const seed: SimHost = {
    ...jailHost(),
    disks: [...jailHost().disks, { name: 'ada1', sizeBytes: 256 * MiB }],
    pools: [...jailHost().pools, { name: 'tmp', vdevs: [{ type: 'disk', name: 'ada1' }], allocatedBytes: 200 * MiB }],
    datasets: [...jailHost().datasets, { name: 'tmp', type: 'filesystem', usedBytes: 200 * MiB, mountpoint: '/var/tmp' }],
  };
  const { exec, argvs, results } = await runScratchPool(seed);
  const df = (await exec.run(['df', '-k', '/var/tmp'])).stdout;
  expect(df.split('\n')[0]).toBe('Filesystem 1024-blocks   Used Avail Capacity  Mounted on');
  expect(df.split('\n')[1]).toMatch(/^tmp +\d+ +204800 +\d+ +\d+%  \/var\/tmp$/);
  expect(results).toEqual([
    {
      name: 'scratch-pool',
      verdict: 'skipped',
      detail: expect.stringMatching(/^missing: 320 MiB free in \/var\/tmp for the scratch pool's files \(it has \d+ MiB\)$/),
      cleanupErrors: [],
    },
  ]);
  expect(argvs.some((a) => a[0] === 'truncate' || a[0] === 'mkdir' || (a[0] === 'zpool' && a[1] === 'create'))).toBe(false);
  expect(parseDfAvail(df)).toBeLessThan(320 * MiB);
});
