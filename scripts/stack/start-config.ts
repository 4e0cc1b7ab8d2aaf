import { existsSync } from 'node:fs';
import { isIpLiteral } from '#domain/vms/vnc-rules';
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

function port(env: NodeJS.ProcessEnv, name: string, def: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > 65535) throw new StartConfigError(`${name}="${raw}" is not a TCP port: expected an integer 1–65535`);
  return n;
}

/** Every problem of the environment is reported at once, each saying what to set. */
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
  if (advertisedIp && !isIpLiteral(advertisedIp))
    problems.push(`HM_ADVERTISED_IP="${advertisedIp}" is not an IP address literal (e.g. 192.0.2.10 or 2001:db8::10); or unset it to advertise 127.0.0.1`);
  const cfg: StartConfig = {
    databaseUrl: env.DATABASE_URL || undefined,
    adminToken,
    seedFile,
    localDir: env.HM_LOCAL_DIR || '.local',
    httpPort: take(() => port(env, 'HM_HTTP_PORT', 3000), 0),
    lambdaPort: take(() => port(env, 'HM_LAMBDA_PORT', 3002), 0),
    pglitePort: take(() => port(env, 'HM_PGLITE_PORT', 5433), 0),
    queuePort: take(() => port(env, 'HM_QUEUE_PORT', 9324), 0),
    agents,
    advertisedIp,
  };
  if (problems.length) throw new StartConfigError(problems.join('\n'));
  return cfg;
}
