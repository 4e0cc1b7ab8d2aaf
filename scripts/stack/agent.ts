import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream, existsSync, mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { LEASH } from './leash.ts';

export interface AgentProcessOptions {
  apiUrl: string;
  token: string;
  nodeId: string;
  /** simulator state file (the agent runs with --executor simulator) */
  simulatorState: string;
  stateDir: string;
  queueEndpoint: string;
  queuePrefix?: string;
  /** agent flags beyond the above, e.g. ['--heartbeat-interval', '1'] */
  args?: string[];
  env?: NodeJS.ProcessEnv;
  /** stdout+stderr go here (appended) */
  logFile: string;
}

export interface AgentProcess {
  child: ChildProcess;
  pid: number;
  exited: Promise<number | null>;
  /** SIGTERM (graceful: drains), waits up to `timeoutMs`, then SIGKILL */
  stop(timeoutMs?: number): Promise<number | null>;
  /** SIGKILL: the agent dies mid-whatever */
  kill(): Promise<number | null>;
}

/** The bundle when built, else the sources through tsx. */
const built = (bundle: string, source: string): string[] => (existsSync(resolve(bundle)) ? [resolve(bundle)] : ['--import', 'tsx', resolve(source)]);

/** The agent as hosts run it: real executors only (local, ssh). */
export function productionAgentCommand(): string[] {
  return built('dist/agent/agent.js', 'agent/main.ts');
}

/** The same agent code with the host simulator's executor beside it: what npm start and the tests run. */
export function agentCommand(): string[] {
  return built('dist/simulator/agent.js', 'scripts/stack/simulated-agent.ts');
}

/** Starts an agent process (npm start's simulator host, and the tests' agents). */
export function startAgentProcess(o: AgentProcessOptions): AgentProcess {
  mkdirSync(dirname(o.logFile), { recursive: true });
  mkdirSync(o.stateDir, { recursive: true });
  const log = createWriteStream(o.logFile, { flags: 'a' });
  const child = spawn(
    process.execPath,
    [
      ...LEASH,
      ...agentCommand(),
      '--executor',
      'simulator',
      '--simulator-state',
      o.simulatorState,
      '--node-id',
      o.nodeId,
      '--state-dir',
      o.stateDir,
      ...(o.args ?? []),
    ],
    {
      env: {
        ...process.env,
        HM_API_URL: o.apiUrl,
        HM_AGENT_TOKEN: o.token,
        HM_QUEUE_ENDPOINT: o.queueEndpoint,
        ...(o.queuePrefix ? { HM_QUEUE_PREFIX: o.queuePrefix } : {}),
        ...o.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout!.pipe(log);
  child.stderr!.pipe(log);
  const exited = new Promise<number | null>((r) => child.once('exit', (code, signal) => r(code ?? (signal ? -1 : null))));
  let done = false;
  void exited.then(() => (done = true));
  const stop = async (timeoutMs = 30_000) => {
    if (done) return exited;
    child.kill('SIGTERM');
    const t = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    const code = await exited;
    clearTimeout(t);
    return code;
  };
  const kill = async () => {
    if (!done) child.kill('SIGKILL');
    return exited;
  };
  return { child, pid: child.pid!, exited, stop, kill };
}
