import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { initialState } from '#simulator/init';
import { writeAtomic } from '#simulator/state-file';
import type { SimHost } from '#shared/seed/host/schema';
import type { AgentProcess } from './agent.ts';

/** The member node of the demo seed, the one with a simulated host. */
export const DEMO_NODE_ID = '7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01';
export { DEMO_SEED as DEMO_SEED_FILE } from '#shared/seed/load';

/** The seed's simulated host for a node (`hosts[nodeId]`), if the seed describes one. */
export function seedHost(seedFile: string, nodeId: string): SimHost | undefined {
  if (!existsSync(seedFile)) return undefined;
  const seed = JSON.parse(readFileSync(seedFile, 'utf8')) as { hosts?: Record<string, SimHost> };
  return seed.hosts?.[nodeId];
}

/**
 * Writes the simulator's state file from a seed host unless it exists already: the simulated host keeps
 * its state (replaced disks, set tunables) across restarts of the stack, like a real one.
 */
export function ensureSimulatorState(file: string, host: SimHost): void {
  if (existsSync(file)) return;
  mkdirSync(resolve(file, '..'), { recursive: true });
  writeAtomic(file, `${JSON.stringify(initialState(host, Date.now()), null, 2)}\n`);
}

export interface LocalAgent {
  nodeId: string;
  /** the node's name and address as the agent presents them */
  name: string;
  address: string;
  process: AgentProcess;
  logFile: string;
  statePath: string;
}
