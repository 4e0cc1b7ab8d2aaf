import { existsSync } from 'node:fs';
import { checkSettings, setting } from '#shared/config/read';
import { tokenFormatProblem } from '../cli/token-format.ts';

/** npm start's settings from its environment, checked before anything starts. */
export interface StartConfig {
  databaseUrl?: string;
  adminToken?: string;
  seedFile?: string;
  /** the store, simulated hosts, agent state and logs (HM_LOCAL_DIR, default .local) */
  localDir: string;
  httpPort: number;
  lambdaPort: number;
  pglitePort: number;
  queuePort: number;
  /** which seeded simulated hosts get an agent: all, none, or only these node ids */
  agents: 'all' | 'none' | string[];
  /** E16's `leaderIp` (HM_ADVERTISED_IP); unset: the loopback address the stack serves on */
  advertisedIp?: string;
}

export class StartConfigError extends Error {}

/**
 * Every problem of the environment is reported at once, each saying what to set: npm start's own settings, and
 * those of the functions it serves (serverless.yml hands them this environment), so a bad value stops the start
 * rather than the first request that reads it.
 */
export function startConfig(env: NodeJS.ProcessEnv): StartConfig {
  const problems: string[] = [];
  const take = <T>(f: () => T, fallback: T): T => {
    try {
      return f();
    } catch (err) {
      problems.push((err as Error).message);
      return fallback;
    }
  };
  const checked = <T>(f: () => T, fallback: T): T => {
    try {
      return f();
    } catch {
      return fallback;
    }
  };
  take(() => checkSettings(['npm start', 'functions'], env), undefined);
  const adminToken = env.HM_ADMIN_TOKEN || undefined;
  const tokenProblem = adminToken === undefined ? null : tokenFormatProblem('HM_ADMIN_TOKEN', adminToken);
  if (tokenProblem) problems.push(`${tokenProblem}; or unset HM_ADMIN_TOKEN to have npm start generate and print one`);
  const seedFile = env.HM_SEED || undefined;
  if (seedFile && !existsSync(seedFile)) problems.push(`HM_SEED=${seedFile}: no such file (a seed file is JSON, see shared/seed/README.md)`);
  const agentNode = env.HM_AGENT_NODE?.trim();
  const agents =
    !agentNode || agentNode === 'all'
      ? 'all'
      : agentNode === 'none'
        ? 'none'
        : agentNode
            .split(',')
            .map((s) => s.trim().toLowerCase())
            .filter(Boolean);
  const advertisedIp = env.HM_ADVERTISED_IP?.trim() || undefined;
  const cfg: StartConfig = {
    databaseUrl: env.DATABASE_URL || undefined,
    adminToken,
    seedFile,
    localDir: checked(() => setting('HM_LOCAL_DIR', env), '.local'),
    // each was checked above (a bad one is among the problems already)
    httpPort: checked(() => setting('HM_HTTP_PORT', env), 0),
    lambdaPort: checked(() => setting('HM_LAMBDA_PORT', env), 0),
    pglitePort: checked(() => setting('HM_PGLITE_PORT', env), 0),
    queuePort: checked(() => setting('HM_QUEUE_PORT', env), 0),
    agents,
    advertisedIp,
  };
  if (problems.length) throw new StartConfigError(problems.join('\n'));
  return cfg;
}
