/**
 * Simulated hosts for in-process agent tests (drivers and job handlers without an agent process): each host
 * in its own state file under one temp dir, removed after the test file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatorExecutor } from '#simulator/executor';
import { RC_PATH } from '#simulator/profiles';
import { programPath } from '#agent/executors/program-path';
import type { SimHost } from '#shared/seed/host/schema';
import { DEMO_NODE_ID, DEMO_SEED_FILE, seedHost } from '#scripts/stack/local-agent';

/** what the agent's commands find on a host where it runs as an rc.d service */
export const AGENT_PATH = programPath(undefined, RC_PATH);

let dir: string | undefined;
let n = 0;
afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A fresh simulated host from `seed`, as the executor the agent uses; `.simulator` reaches its state. */
export function simulatedHost(seed: SimHost): SimulatorExecutor {
  dir ??= mkdtempSync(join(tmpdir(), 'hm-sim-host-'));
  return new SimulatorExecutor({ statePath: join(dir, `host-${++n}.json`), seed, path: AGENT_PATH });
}

/** A host for jails: pool zroot on ada0 with the zroot/jails dataset, and the given jails. */
export function jailHost(jails: SimHost['jails'] = []): SimHost {
  return {
    hostname: 'sim-jails.example.net',
    cpus: 4,
    memoryBytes: 8 * 2 ** 30,
    disks: [{ name: 'ada0', sizeBytes: 500 * 2 ** 30 }],
    pools: [{ name: 'zroot', vdevs: [{ type: 'disk', name: 'ada0' }], allocatedBytes: 20 * 2 ** 30 }],
    datasets: [
      { name: 'zroot', type: 'filesystem', usedBytes: 20 * 2 ** 30, mountpoint: 'none' },
      { name: 'zroot/jails', type: 'filesystem', usedBytes: 3 * 2 ** 30, mountpoint: '/zroot/jails' },
    ],
    sysctls: [],
    arc: { sizeBytes: 2 ** 30, targetBytes: 2 ** 30, minBytes: 2 ** 28, maxBytes: 2 ** 32 },
    jails,
  };
}

/** The demo node's host as the demo seed describes it (what `npm start` simulates). */
export function demoSeedHost(): SimHost {
  const host = seedHost(join(__dirname, '../..', DEMO_SEED_FILE), DEMO_NODE_ID);
  if (!host) throw new Error(`${DEMO_SEED_FILE} has no hosts["${DEMO_NODE_ID}"]`);
  return host;
}
