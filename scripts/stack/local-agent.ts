import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Kysely } from 'kysely';
import type { Database } from '../../shared/store/tables.ts';
import { createToken } from '../../shared/auth/tokens.ts';
import { initialState } from '../../agent/simulator/init.ts';
import { writeAtomic } from '../../agent/simulator/state-file.ts';
import type { SimHost } from '../../shared/seed/host/schema.ts';
import { startAgentProcess, type AgentProcess } from './agent.ts';

/** The member node of the demo seed: the simulated host `npm start` runs an agent for. */
export const DEMO_NODE_ID = '7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01';
export { DEMO_SEED as DEMO_SEED_FILE } from '../../shared/seed/load.ts';

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
  process: AgentProcess;
  logFile: string;
  statePath: string;
}

/**
 * npm start's agent: a fresh agent token for the node (earlier ones of npm start revoked), the simulated
 * host's state under .local/simulator/, and the agent process with the simulator executor.
 */
export async function startLocalAgent(o: {
  db: Kysely<Database>;
  apiUrl: string;
  queueEndpoint: string;
  queuePrefix: string;
  nodeId: string;
  seedFile: string;
  localDir: string;
  logDir: string;
}): Promise<LocalAgent | null> {
  const statePath = resolve(o.localDir, 'simulator', `${o.nodeId}.json`);
  if (!existsSync(statePath)) {
    const host = seedHost(o.seedFile, o.nodeId);
    if (!host) {
      console.warn(`no agent started: ${o.seedFile} has no hosts["${o.nodeId}"] to simulate`);
      return null;
    }
    ensureSimulatorState(statePath, host);
  }
  const name = `agent ${o.nodeId} (npm start)`;
  await o.db.updateTable('api_tokens').set({ revoked_at: new Date() }).where('name', '=', name).where('revoked_at', 'is', null).execute();
  const { token } = await createToken(o.db, { name, role: 'agent', nodeId: o.nodeId });
  const logFile = join(o.logDir, 'agent.log');
  const proc = startAgentProcess({
    apiUrl: o.apiUrl,
    token,
    nodeId: o.nodeId,
    simulatorState: statePath,
    stateDir: resolve(o.localDir, 'agent', o.nodeId),
    queueEndpoint: o.queueEndpoint,
    queuePrefix: o.queuePrefix,
    logFile,
  });
  return { nodeId: o.nodeId, process: proc, logFile, statePath };
}
