import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SimulatorExecutor } from '#simulator/executor';
import { RC_PATH } from '#simulator/profiles';
import { programPath } from '#agent/executors/program-path';
import type { SimHost } from '#shared/seed/host/schema';

/** Shared by the simulator and driver tests: fixtures, the demo host, a simulated host with a test clock. */
export { fixture } from '../../helpers/fixtures.ts';

/** A host like the demo one, kept stable for these tests (the demo host grows with other capabilities). */
export const demoHost = (): SimHost => JSON.parse(readFileSync(join(__dirname, 'test-host.json'), 'utf8'));

export const T0 = Date.UTC(2025, 5, 2, 12, 0, 0);

export interface TestHost {
  exec: SimulatorExecutor;
  statePath: string;
  /** moves the simulated clock */
  advance(ms: number): void;
  now(): number;
  cleanup(): void;
}

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

export function simulate(host: SimHost, opts: { resilverMs?: number; start?: number } = {}): TestHost {
  const dir = mkdtempSync(join(tmpdir(), 'hm-sim-'));
  dirs.push(dir);
  let t = opts.start ?? T0;
  const statePath = join(dir, 'state.json');
  const exec = new SimulatorExecutor({ statePath, seed: host, now: () => t, resilverMs: opts.resilverMs ?? 10_000, path: programPath(undefined, RC_PATH) });
  return { exec, statePath, advance: (ms) => (t += ms), now: () => t, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A minimal host: one pool of the given vdevs, optional extra disks and sysctls. */
export function host(partial: Partial<SimHost> = {}): SimHost {
  return { hostname: 'sim.test', cpus: 4, memoryBytes: 4248858624, disks: [], pools: [], datasets: [], sysctls: [], ...partial };
}

/** The handbook prints `zpool status` with 8 spaces where zpool prints TABs (SOURCES.md). */
export const tabs = (text: string) => text.replace(/^ {8}/gm, '\t');
