import type { Executor } from './executor.ts';
import { LocalExecutor, type LocalExecutorOptions } from './local.ts';
import { SshExecutor, type SshExecutorOptions } from './ssh.ts';

/** The executors every agent build carries; the host simulator lives outside the agent (simulator/). */
interface ExecutorOptions {
  kind: 'local' | 'ssh';
  local?: LocalExecutorOptions;
  /** required for kind ssh */
  ssh?: SshExecutorOptions;
}

/** A real host's executor, as the agent's configuration names it. SSH connects on the first command. */
export function createExecutor(opts: ExecutorOptions): Executor {
  switch (opts.kind) {
    case 'local':
      return new LocalExecutor(opts.local);
    case 'ssh':
      if (!opts.ssh?.host) throw new Error('ssh executor: a host is required');
      return new SshExecutor(opts.ssh);
    default:
      throw new Error(`unknown executor kind ${String((opts as { kind: unknown }).kind)}`);
  }
}
