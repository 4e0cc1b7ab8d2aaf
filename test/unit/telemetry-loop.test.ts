// @tier stack
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HostSimulator } from '#simulator/simulator';
import type { Executor } from '#agent/executors/executor';
import { ApiError } from '#agent/runtime/api';
import { AgentClient } from '#agent/runtime/client';
import { parseConfig } from '#agent/runtime/config';
import { createTelemetryLoop, MAX_BUFFERED_SAMPLES } from '#agent/runtime/telemetry-loop';
import type { TelemetrySample } from '#domain/telemetry/sample';
import { testHost } from '../helpers/agent.ts';

const quiet = () => undefined;

function simulatedHost(): Executor {
  const sim = new HostSimulator({
    statePath: join(mkdtempSync(join(tmpdir(), 'hm-tl-')), 'host.json'),
    seed: testHost({
      disks: [{ name: 'ada1', sizeBytes: 10 ** 11 }],
      pools: [
        { name: 'tank', vdevs: [{ type: 'disk', name: 'ada1' }], allocatedBytes: 10 ** 10, io: { readOps: 10, writeOps: 5, readBytes: 1e5, writeBytes: 5e4 } },
      ],
    }),
  });
  return { kind: 'simulator', run: (argv) => sim.run(argv) };
}

describe('agent telemetry loop', () => {
  test('samples the host and posts them; while the control plane is unreachable they wait, then go oldest first', async () => {
    const posts: TelemetrySample[][] = [];
    let down = 2;
    const api = new AgentClient({
      call: async (_m: string, path: string, body: unknown) => {
        expect(path).toBe('/agent/telemetry');
        if (down-- > 0) throw new Error('503 cluster_consensus_unavailable: store down');
        posts.push((body as { samples: TelemetrySample[] }).samples);
        return { status: 200, data: {}, message: 'telemetry_stored' } as never;
      },
    });
    const loop = createTelemetryLoop({ exec: simulatedHost(), api, log: quiet, intervalSeconds: 10, iostatWindowSeconds: 0 });
    await loop.tick();
    await loop.tick();
    expect(loop.pending).toHaveLength(2);
    await loop.tick();
    expect(loop.pending).toHaveLength(0);
    expect(posts).toHaveLength(1);
    const [batch] = posts;
    expect(batch).toHaveLength(3);
    expect(batch.map((s) => s.time)).toEqual([...batch.map((s) => s.time)].sort((a, b) => a - b));
    expect(batch[0].pools.map((p) => p.name)).toEqual(['tank']);
    expect(batch[0].pools[0].guid).toMatch(/^\d+$/);
    expect(batch[0].intervalSeconds).toBe(10);
    expect(batch[0].arc!.sizes.maxSize).toBe(6 * 1024 ** 3);
  });

  test('a refused post (4xx) is dropped, not retried for ever; the buffer keeps at most the newest samples', async () => {
    let t = 0;
    const collect = async (): Promise<TelemetrySample> => ({ time: ++t, intervalSeconds: 10, pools: [] });
    const refused = createTelemetryLoop({
      exec: simulatedHost(),
      api: new AgentClient({
        call: async () => {
          throw new ApiError(400, 'validation_failed', 'body.samples[0].time: must be >= 0');
        },
      }),
      log: quiet,
      intervalSeconds: 10,
      collect,
    });
    await refused.tick();
    expect(refused.pending).toHaveLength(0);

    const down = createTelemetryLoop({
      exec: simulatedHost(),
      api: new AgentClient({
        call: async () => {
          throw new Error('connect ECONNREFUSED');
        },
      }),
      log: quiet,
      intervalSeconds: 10,
      collect,
    });
    for (let i = 0; i < MAX_BUFFERED_SAMPLES + 5; i++) await down.tick();
    expect(down.pending).toHaveLength(MAX_BUFFERED_SAMPLES);
    expect(down.pending[down.pending.length - 1].time).toBe(t);
    expect(down.pending[0].time).toBe(t - MAX_BUFFERED_SAMPLES + 1);
  });

  test('the interval: --telemetry-interval, else HM_TELEMETRY_INTERVAL, else 10 s; bounded', () => {
    const base = ['--api-url', 'http://127.0.0.1:1/api', '--token', 'hm_x', '--node-id', '7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01'];
    const parse = (argv: string[], env: NodeJS.ProcessEnv = {}) => parseConfig([...base, ...argv], env, () => '')!.telemetryIntervalS;
    expect(parse([])).toBe(10);
    expect(parse([], { HM_TELEMETRY_INTERVAL: '2' })).toBe(2);
    expect(parse(['--telemetry-interval', '30'], { HM_TELEMETRY_INTERVAL: '2' })).toBe(30);
    expect(() => parse(['--telemetry-interval', 'soon'])).toThrow(/telemetry-interval/);
    expect(() => parse(['--telemetry-interval', '0'])).toThrow(/telemetry-interval/);
  });
});
