import { readFileSync } from 'node:fs';
import { InventoryCollector } from '../collectors/inventory-collector.ts';
import { Agent, FatalAgentError } from './agent.ts';
import { ConfigError, HELP, parseConfig } from './config.ts';
import { executorFor, type ExtraExecutors } from './host.ts';
import { createLogger } from './log.ts';

/**
 * The agent's command line, shared by every entry point (agent/main.ts for hosts, scripts/stack/simulated-agent.ts for the
 * simulated hosts of npm start and the tests): parse the options, build the executor, run until stopped.
 * Exit codes: 0 stopped (or --help), 1 the agent failed, 2 a configuration error.
 */
export async function agentCli(argv: string[], extra: ExtraExecutors = {}): Promise<number> {
  // the doctor's checks load only when it runs: the service never needs them
  if (argv[0] === 'doctor') return (await import('../doctor/cli.ts')).doctorCli(argv.slice(1), extra);
  let cfg;
  let exec;
  try {
    cfg = parseConfig(argv, process.env, (f) => readFileSync(f, 'utf8'));
    if (cfg) exec = executorFor(cfg, extra);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`hostmgr-agent: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (!cfg || !exec) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const log = createLogger({ component: 'agent', pid: process.pid });
  // Node's warnings (e.g. the AWS SDK's Node-version notice) go into the JSON log, not as loose stderr text
  process.removeAllListeners('warning');
  process.on('warning', (w) => log('warn', 'node warning', { name: w.name, warning: w.message.split('\n')[0] }));
  const agent = new Agent(cfg, exec, (e, c) => new InventoryCollector(e, { sweepIntervalMs: c.inventorySweepIntervalS * 1000 }), log);
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => agent.stop());
  try {
    await agent.run();
    return 0;
  } catch (err) {
    log('error', err instanceof FatalAgentError ? err.message : 'agent failed', {
      cause: (err as Error).message,
      stack: err instanceof FatalAgentError ? undefined : (err as Error).stack,
    });
    return 1;
  }
}

/** Runs the command line as this process and exits when it is done. */
export async function runAgentProcess(extra: ExtraExecutors = {}): Promise<void> {
  process.exitCode = await agentCli(process.argv.slice(2), extra);
  // timers of the SDK's connection pool must not keep a stopped agent alive
  setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref();
}
