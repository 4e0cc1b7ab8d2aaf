import { createExecutor } from '../executors/index.ts';
import type { Executor } from '../executors/executor.ts';
import type { AgentConfig } from './config.ts';

/** The executor the configuration asks for (agent/executors: local, ssh, simulator). */
export function executorFor(cfg: AgentConfig): Executor {
  return createExecutor({
    kind: cfg.executor,
    ssh: cfg.executor === 'ssh' ? { host: cfg.ssh.host!, port: cfg.ssh.port, username: cfg.ssh.user, privateKeyPath: cfg.ssh.keyFile, hostKeySha256: cfg.ssh.hostKeys, insecureAcceptAnyHostKey: cfg.ssh.insecureAcceptAnyHostKey } : undefined,
    simulatorState: cfg.simulatorState,
  });
}
