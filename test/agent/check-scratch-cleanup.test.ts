// @tier fast
import type { ScenarioContext } from '#agent/check/runner';
import { createFilePool } from '#agent/check/scenarios/scratch-pool';
import type { Executor } from '#agent/executors/executor';
import { simulatedVms } from '#simulator/commands/virsh';
import { demoSeedHost, simulatedHost } from '../helpers/simulated-host.ts';

/**
 * The kit's scratch pool is never destroyed with a zvol left in it: that zvol may still be open (ctld serving it),
 * and with a zvol open `zpool destroy` waits in the kernel for its last close with no timeout on OpenZFS
 * 2.4.0-2.4.4 (FreeBSD 15.0). Its directory, which holds the pool's device files, stays while the pool does.
 */
const DIR = '/var/tmp/hm-check-t1';
const POOL = 'hm-check-t1';

async function scratch() {
  const seed = demoSeedHost();
  const exec = simulatedHost({ ...seed, dirs: [...(seed.dirs ?? []), '/var/tmp'] });
  const steps: Array<{ what: string; step: (e: Executor) => Promise<void> }> = [];
  const ctx = { exec, cleanup: (what, step) => void steps.unshift({ what, step }), note: () => undefined } as Pick<
    ScenarioContext,
    'exec' | 'cleanup' | 'note'
  >;
  await createFilePool(ctx as ScenarioContext, { pool: POOL, dir: DIR, vdevs: [`${DIR}/vdev0`], mountpoint: `${DIR}/mnt` });
  /** the cleanup steps, last registered first, as the runner runs them: each one's error, or null */
  const cleanup = async () => {
    const errors: Array<string | null> = [];
    for (const { step } of steps)
      errors.push(
        await step(exec).then(
          () => null,
          (e: Error) => e.message,
        ),
      );
    return errors;
  };
  const pools = async () => (await exec.run(['zpool', 'list', '-H', '-o', 'name'])).stdout.split('\n').filter(Boolean);
  return { exec, cleanup, pools };
}

test('a zvol left in the scratch pool keeps the pool and its files; once it is gone, both go', async () => {
  const { exec, cleanup, pools } = await scratch();
  expect(await exec.run(['zfs', 'create', '-V', '16M', `${POOL}/vol`])).toMatchObject({ code: 0 });
  // held open, as a LUN or a VM would: the simulator calls a zpool destroy now a fault, as a real host may hang
  await exec.simulator.state((s) => void simulatedVms(s).push({ rid: 9001, name: 'held', state: 'running', zvols: [`${POOL}/vol`] }));
  expect(await exec.run(['zpool', 'destroy', POOL])).toMatchObject({ code: 70, stderr: expect.stringContaining('may hang') });

  const [pool, dir] = await cleanup();
  expect(pool).toMatch(new RegExp(`^not destroying pool ${POOL}: ${POOL}/vol still there`));
  expect(pool).toContain(`zfs destroy it, then zpool destroy ${POOL} and rm -rf ${DIR}`);
  expect(dir).toBe(`not removing ${DIR}: pool ${POOL} is still imported on its files`);
  expect(await pools()).toContain(POOL);
  expect(await exec.run(['ls', `${DIR}/vdev0`])).toMatchObject({ code: 0 });

  expect(await exec.run(['virsh', '-c', 'bhyve:///system', 'destroy', '9001'])).toMatchObject({ code: 0 });
  expect(await exec.run(['zfs', 'destroy', `${POOL}/vol`])).toMatchObject({ code: 0 });
  expect(await cleanup()).toEqual([null, null]);
  expect(await pools()).not.toContain(POOL);
  expect(await exec.run(['ls', DIR])).toMatchObject({ code: 1 });
});
