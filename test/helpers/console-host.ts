import type { SimHost } from '#shared/seed/host/schema';
import { testHost } from './agent.ts';

const GB = 1000 ** 3;

/**
 * The simulated host the console's browser tests drive: four disks (ada1+ada2 a mirror, ada0 and ada3 free for an
 * E7 replace), pool tank with I/O and ARC figures for the charts, and one running jail `web` with id `jailId`.
 */
export function consoleTestHost(jailId: number): SimHost {
  return testHost({
    disks: ['ada0', 'ada1', 'ada2', 'ada3'].map((name) => ({ name, sizeBytes: 100 * GB })),
    pools: [
      {
        name: 'tank',
        vdevs: [
          {
            type: 'mirror',
            children: [
              { type: 'disk', name: 'ada1' },
              { type: 'disk', name: 'ada2' },
            ],
          },
        ],
        allocatedBytes: 20 * GB,
        io: { readOps: 120, writeOps: 60, readBytes: 4e6, writeBytes: 2e6, readWaitNs: 250_000, writeWaitNs: 500_000 },
      },
    ],
    datasets: [
      { name: 'tank', type: 'filesystem', usedBytes: 20 * GB, mountpoint: '/tank' },
      { name: 'tank/jails', type: 'filesystem', usedBytes: 2 * GB, mountpoint: '/tank/jails' },
      { name: 'tank/jails/web', type: 'filesystem', usedBytes: 2 * GB, mountpoint: '/tank/jails/web' },
    ],
    jails: [{ ctid: jailId, name: 'web', dataset: 'tank/jails/web', state: 'running' }],
    arc: { sizeBytes: 4 * 1024 ** 3, targetBytes: 4 * 1024 ** 3, minBytes: 512 * 1024 ** 2, maxBytes: 6 * 1024 ** 3, hitRatio: 0.9, accessesPerSecond: 2000 },
  });
}
