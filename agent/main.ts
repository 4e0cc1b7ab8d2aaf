/**
 * hostmgr-agent: the long-running service on each host that runs its node's tasks and reports the host's
 * inventory and telemetry. `npm run agent -- --help`.
 * Bundled by `npm run build` into dist/agent/agent.js, which is what hosts run.
 */
import { readFileSync } from 'node:fs';
import { collectInventory } from './collectors/inventory.ts';
import { Agent, FatalAgentError } from './runtime/agent.ts';
import { ConfigError, HELP, parseConfig } from './runtime/config.ts';
import { executorFor } from './runtime/host.ts';
import { createLogger } from './runtime/log.ts';

async function main(): Promise<number> {
  let cfg;
  try {
    cfg = parseConfig(process.argv.slice(2), process.env, (f) => readFileSync(f, 'utf8'));
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`hostmgr-agent: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  if (!cfg) {
    process.stdout.write(`${HELP}\n`);
    return 0;
  }
  const log = createLogger({ component: 'agent', pid: process.pid });
  // Node's warnings (e.g. the AWS SDK's Node-version notice) go into the JSON log, not as loose stderr text
  process.removeAllListeners('warning');
  process.on('warning', (w) => log('warn', 'node warning', { name: w.name, warning: w.message.split('\n')[0] }));
  const exec = executorFor(cfg);
  const agent = new Agent(cfg, exec, collectInventory, log);
  for (const sig of ['SIGTERM', 'SIGINT'] as const) process.on(sig, () => agent.stop());
  try {
    await agent.run();
    return 0;
  } catch (err) {
    log('error', err instanceof FatalAgentError ? err.message : 'agent failed', { cause: (err as Error).message, stack: err instanceof FatalAgentError ? undefined : (err as Error).stack });
    return 1;
  }
}

process.exitCode = await main();
// timers of the SDK's connection pool must not keep a stopped agent alive
setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref();
