import { collectTelemetry, L2DeviceCount } from '#agent/collectors/telemetry';
import type { Executor } from '#agent/executors/executor';
import { demoHost, simulate } from '../simulator/sim-helper.ts';

describe('telemetry: the cache-device count between samples', () => {
  it('runs zpool status once a minute, not at every sample, and again when the pools changed', async () => {
    const h = simulate(demoHost());
    const statuses: number[] = [];
    let renamed = false;
    const exec: Executor = {
      kind: 'simulator',
      run: async (argv, o) => {
        if (argv[0] === 'zpool' && argv[1] === 'status') statuses.push(h.now());
        const r = await h.exec.run(argv, o);
        // a pool imported under another GUID, as `zpool list` would then print it
        return renamed && argv[0] === 'zpool' && argv[1] === 'list' ? { ...r, stdout: r.stdout.replace('11883512960153316402', '42') } : r;
      },
    };
    const l2Devices = new L2DeviceCount();
    const counts: number[] = [];
    for (let i = 0; i < 7; i++) {
      counts.push((await collectTelemetry(exec, { now: h.now, l2Devices })).arc!.sizes.l2DeviceCount);
      h.advance(10_000);
    }
    // samples at 0, 10 … 60 s: counted at 0 and at 60
    expect(statuses).toHaveLength(2);
    expect(counts).toEqual([1, 1, 1, 1, 1, 1, 1]);
    renamed = true;
    await collectTelemetry(exec, { now: h.now, l2Devices });
    expect(statuses).toHaveLength(3);
    // without the cache (one-off samples) every sample counts
    await collectTelemetry(exec, { now: h.now });
    expect(statuses).toHaveLength(4);
  });
});
