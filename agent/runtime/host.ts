import { createExecutor } from '../executors/index.ts';
import type { Executor } from '../executors/executor.ts';
import { ConfigError, type AgentConfig, type ExecutorKind } from './config.ts';

/**
 * Executors an entry point adds beyond the real ones, by kind. The production agent adds none; the simulator
 * build (scripts/stack/simulated-agent.ts) adds `simulator`. The agent never imports them itself: whoever bundles an
 * executor hands it in, so a bundle contains only the executors its entry names.
 */
export type ExtraExecutors = Partial<Record<ExecutorKind, (cfg: AgentConfig) => Executor>>;

/** Where the agent with the host simulator is, for the error the production build gives when asked for it. */
const SIMULATOR_BUILD = 'dist/simulator/agent.js (from the sources: npx tsx scripts/stack/simulated-agent.ts)';

/** The executor the configuration asks for: local or ssh, or one the entry point added. */
export function executorFor(cfg: AgentConfig, extra: ExtraExecutors = {}): Executor {
  const make = extra[cfg.executor];
  if (make) return make(cfg);
  if (cfg.executor === 'simulator') {
    throw new ConfigError(`--executor simulator: this agent build has no host simulator; run the simulator build, ${SIMULATOR_BUILD}`);
  }
  return createExecutor({
    kind: cfg.executor,
    local: { path: cfg.programPath },
    ssh:
      cfg.executor === 'ssh'
        ? {
            host: cfg.ssh.host!,
            port: cfg.ssh.port,
            username: cfg.ssh.user,
            privateKeyPath: cfg.ssh.keyFile,
            hostKeySha256: cfg.ssh.hostKeys,
            insecureAcceptAnyHostKey: cfg.ssh.insecureAcceptAnyHostKey,
          }
        : undefined,
  });
}
