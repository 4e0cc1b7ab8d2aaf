import { backupRun } from '#agent/jobs/backup-run';
import { restoreBackup } from '#agent/jobs/backup-restore';
import { type Guest, guest } from './guest.ts';
import { createPool, dropPool, jobContext, propsWithSource, VDEV_DIR } from './scenario.ts';

/**
 * A pool imported with an altroot (`zpool import -R`, as a rescue boot or a pool of another host mounted for
 * inspection has it): `zfs get mountpoint` prints every path with the altroot in front, while the property holds
 * the path without it (libzfs zfs_prop_get adds the pool's altroot). A mountpoint the agent reads and writes back
 * — E15 keeps the original's local mountpoint on the restored dataset — must not get the altroot twice.
 */
const POOL = 'hmalt';
const BK = 'hmaltbk';
const ALTROOT = '/mnt/hmalt';
const JOB = 13;
const DS = `${POOL}/jails/web`;
const COPY = `${BK}/backups/web`;
const MOUNTPOINT = '/srv/web';

let g: Guest;
const clock = Date.UTC(2026, 0, 3, 3, 0, 0);
const notFaked = ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'nextTick', 'queueMicrotask'] as const;
beforeAll(async () => {
  g = await guest();
  await createPool(g, POOL, { args: ['-R', ALTROOT] });
  await createPool(g, BK);
  await g.ok(['zfs', 'create', '-p', `${POOL}/jails`]);
  await g.ok(['zfs', 'create', '-o', `mountpoint=${MOUNTPOINT}`, DS]);
  await g.ok(['zfs', 'create', `${BK}/backups`]);
});
afterAll(async () => {
  if (!g) return;
  await dropPool(g, POOL);
  await dropPool(g, BK);
  await g.close();
});

test("E15 on a pool with an altroot writes the original's mountpoint back without the altroot doubled", async () => {
  expect((await propsWithSource(g, 'mountpoint', DS)).mountpoint).toBe(`${ALTROOT}${MOUNTPOINT} local`);
  await g.sh(`printf v1 > ${ALTROOT}${MOUNTPOINT}/data.txt`);
  jest.useFakeTimers({ now: clock, doNotFake: [...notFaked, 'hrtime', 'performance'] });
  try {
    const run = await backupRun(jobContext(g, 'backup.run', `backup-job:${JOB}`), {
      jobId: JOB,
      source: DS,
      retention: 5,
      target: { kind: 'node', nodeId: 'node-b', dataset: COPY, label: `node-b:${COPY}` },
    });
    expect(run.mode).toBe('full');
    jest.setSystemTime(clock + 60_000);
    await g.sh(`printf v2 > ${ALTROOT}${MOUNTPOINT}/data.txt`);
    await restoreBackup(jobContext(g, 'backup.restore', `backup-job:${JOB}`), {
      jobId: JOB,
      eventId: 3,
      dataset: DS,
      snapshot: null,
      source: { kind: 'node', nodeId: 'node-b', dataset: COPY },
      guest: null,
    });
  } finally {
    jest.useRealTimers();
  }
  expect((await propsWithSource(g, 'mountpoint,mounted', DS)).mountpoint).toBe(`${ALTROOT}${MOUNTPOINT} local`);
  expect(await g.ok(['cat', `${ALTROOT}${MOUNTPOINT}/data.txt`])).toBe('v1');

  // imported without the altroot, the dataset mounts where it belongs
  await g.ok(['zpool', 'export', POOL]);
  await g.ok(['zpool', 'import', '-d', VDEV_DIR, '-N', POOL]);
  expect((await propsWithSource(g, 'mountpoint', DS)).mountpoint).toBe(`${MOUNTPOINT} local`);
});
