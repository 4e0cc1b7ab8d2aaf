import { runScenarios } from '#agent/check/runner';
import { SCENARIOS } from '#agent/check/scenarios/index';
import { probeCapabilities } from '#agent/drivers/host-capabilities';
import type { Executor, RunResult } from '#agent/executors/executor';
import type { SimHost } from '#shared/seed/host/schema';
import { demoSeedHost, simulatedHost } from '../helpers/simulated-host.ts';

/**
 * ctld applies a reload in its main loop after the SIGHUP `service ctld reload` sends (usr.sbin/ctld/ctld.c), so
 * for a moment ctladm still lists what was served before. The iscsi scenario waits for the restore's reload to
 * take effect before it checks what is served, and never destroys the scratch zvol while it may still be a LUN.
 */
test('the iscsi scenario waits for the reload to apply before checking and before zfs destroy of the zvol', async () => {
  const seed = demoSeedHost() as SimHost & { dirs?: string[] };
  const exec = simulatedHost({ ...seed, dirs: [...(seed.dirs ?? []), '/var/tmp'], ctld: { running: true } } as SimHost);
  // a ctld slow to apply: after each reload, the next three portlist/devlist reads still show the old state
  let lag = 0;
  const last = new Map<string, RunResult>();
  const events: string[] = [];
  let stillServed = false;
  const slow: Executor = {
    kind: exec.kind,
    run: async (argv, opts) => {
      if (argv[0] === 'service' && argv[2] === 'onereload') lag = 3;
      if (argv[0] === 'ctladm' && lag > 0 && last.has(argv[1])) {
        if (argv[1] === 'portlist') lag--;
        stillServed = /hm-check-r3l0/.test(last.get('portlist')?.stdout ?? '');
        return last.get(argv[1])!;
      }
      if (argv[0] === 'zfs' && argv[1] === 'destroy') events.push(`destroy while ${stillServed && lag > 0 ? 'served' : 'released'}`);
      const r = await exec.run(argv, opts);
      if (argv[0] === 'ctladm') {
        last.set(argv[1], r);
        if (argv[1] === 'portlist') stillServed = /hm-check-r3l0/.test(r.stdout);
      }
      return r;
    },
  };
  const [result] = await runScenarios(
    slow,
    SCENARIOS.filter((s) => s.name === 'iscsi'),
    {
      options: { id: 'r3l0', scratchPool: 'hm-check-r3l0', startVm: false, iscsi: true },
      caps: await probeCapabilities(exec),
      signal: new AbortController().signal,
    },
  );
  expect(result).toMatchObject({ name: 'iscsi', verdict: 'ok', cleanupErrors: [] });
  expect(result.detail).toMatch(/served; \/etc\/ctl\.conf (restored byte for byte|removed again), ctld reloaded/);
  expect(events).toEqual(['destroy while released']);
});
