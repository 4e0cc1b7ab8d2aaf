import { setting } from '#shared/config/read';
import type { RunResult } from '#agent/executors/executor';
import type { SimHost } from '#shared/seed/host/schema';
import { initialState } from './init.ts';
import { RC_PATH } from './profiles.ts';
import { locateProgram } from './program-path.ts';
import { lookupCommand, runTickers, type SimSettings } from './registry.ts';
import { StateFile } from './state-file.ts';
import './commands/index.ts';

/**
 * The host simulator: answers FreeBSD commands from a JSON state file, in FreeBSD 14 / OpenZFS
 * 2.2 output formats. Each command is one transaction on the state file: time-based processes advance
 * (tickers), the command runs, changes are written back.
 */
export interface SimulatorOptions {
  /** the JSON state file; created from `seed` when it does not exist */
  statePath: string;
  seed?: SimHost;
  /** simulated clock (Unix ms); tests pass their own to step time */
  now?: () => number;
  /** resilver duration; default HM_SIM_RESILVER_MS, else the seed's simulation.resilverSeconds, else 6 s */
  resilverMs?: number;
  /**
   * the PATH bare program names are found through (./program-path.ts). Default RC_PATH, what a service
   * started by rc(8) or service(8) has; an SSH session has LOGIN_PATH.
   */
  path?: string;
}

export class HostSimulator {
  private readonly file: StateFile;
  private readonly now: () => number;

  constructor(private readonly opts: SimulatorOptions) {
    this.now = opts.now ?? Date.now;
    const seed = opts.seed;
    this.file = new StateFile(opts.statePath, seed ? () => initialState(seed, this.now()) : undefined);
  }

  get statePath(): string {
    return this.opts.statePath;
  }

  get path(): string {
    return this.opts.path ?? RC_PATH;
  }

  /** Where `argv0` is found on this host through this simulator's PATH; null when sh would say "not found". */
  locate(argv0: string): Promise<string | null> {
    return this.file.transact((state) => locateProgram(state, argv0, this.path));
  }

  private settings(state: SimHost): SimSettings {
    const resilverMs = this.opts.resilverMs ?? setting('HM_SIM_RESILVER_MS') ?? (state.simulation?.resilverSeconds ?? 6) * 1000;
    return { resilverMs };
  }

  /**
   * Runs one command line (argv[0] may be a path). Never throws for the command's own failures. A program not
   * found answers 127 as sh(1) does (`sh: virsh: not found`), or, `spawned`, as the agent's local executor
   * reports execFile's ENOENT (`virsh: not found`).
   */
  run(argv: string[], stdin: string | Buffer = '', spawned = false): Promise<RunResult> {
    if (!argv.length) return Promise.resolve({ code: 127, stdout: '', stderr: 'sh: : not found\n' });
    const handler = lookupCommand(argv[0]);
    const notFound = { code: 127, stdout: '', stderr: `${spawned ? '' : 'sh: '}${argv[0]}: not found\n` };
    if (!handler) return Promise.resolve(notFound);
    return this.file
      .transact(async (state) => {
        if (!locateProgram(state, argv[0], this.path)) return notFound;
        const now = this.now();
        const settings = this.settings(state);
        runTickers(state, now, settings);
        const out = await handler({ argv, args: argv.slice(1), stdin: stdin.toString(), state, now, settings, path: this.path });
        return { code: out.code ?? 0, stdout: out.stdout ?? '', stderr: out.stderr ?? '' };
      })
      .catch((e: Error) => ({
        // a simulator fault (nothing was written), not a FreeBSD answer: make it loud and recognisable
        code: 70,
        stdout: '',
        stderr: `simulator: ${argv[0]}: ${e.stack ?? e}\n`,
      }));
  }

  /** Reads (or, in tests, edits) the state after advancing simulated time; edits are persisted. */
  state<T>(fn: (state: SimHost) => T): Promise<T> {
    return this.file.transact((state) => {
      runTickers(state, this.now(), this.settings(state));
      return fn(state);
    });
  }
}
