import type { Executor } from './executor.ts';
import { LocalExecutor, type LocalExecutorOptions } from './local.ts';
import { SimulatorExecutor } from './simulator.ts';
import { SshExecutor, type SshExecutorOptions } from './ssh.ts';
import type { SimulatorOptions } from '../simulator/simulator.ts';

export interface ExecutorOptions {
  kind: 'local' | 'ssh' | 'simulator';
  local?: LocalExecutorOptions;
  /** required for kind ssh */
  ssh?: SshExecutorOptions;
  /** kind simulator: the simulated host's state file */
  simulatorState?: string;
  /** kind simulator: seed, clock, resilver duration */
  simulator?: Omit<SimulatorOptions, 'statePath'>;
}

/** The executor the agent's configuration names: local, ssh or simulator. SSH connects on the first command. */
export function createExecutor(opts: ExecutorOptions): Executor {
  switch (opts.kind) {
    case 'local':
      return new LocalExecutor(opts.local);
    case 'ssh':
      if (!opts.ssh?.host) throw new Error('ssh executor: a host is required');
      return new SshExecutor(opts.ssh);
    case 'simulator':
      if (!opts.simulatorState) throw new Error('simulator executor: a state file is required');
      return new SimulatorExecutor({ ...opts.simulator, statePath: opts.simulatorState });
    default:
      throw new Error(`unknown executor kind ${String((opts as { kind: unknown }).kind)}`);
  }
}
