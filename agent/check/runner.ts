import type { HostCapabilities } from '#shared/agent-api/capabilities';
import type { Executor, RunOptions, RunResult, StartedCommand } from '../executors/executor.ts';

/**
 * The host conformance kit's runner: scenarios one after the other, each with its own cleanup steps, which run
 * (last registered first) whatever happened — success, a failure, a skip, Ctrl-C, SIGTERM or SIGHUP. A scenario registers the
 * cleanup of a resource *before* it creates it, and each cleanup step checks that its resource is there, so a
 * step interrupted half way is still undone. After an interruption no new command is started on the host
 * (the one running is stopped), the cleanups run with the unwrapped executor, and the remaining scenarios are
 * reported as not run.
 */
export type Verdict = 'ok' | 'fail' | 'skipped';

export interface CheckOptions {
  /** the scratch pool's name (always `hm-check-…`) */
  scratchPool: string;
  /** run id: the suffix of every scratch resource */
  id: string;
  startVm: boolean;
  iscsi: boolean;
}

export interface ScenarioContext {
  /** the host, as the agent reaches it; refuses new commands once the run is interrupted */
  exec: Executor;
  options: CheckOptions;
  caps: HostCapabilities;
  /** aborted on Ctrl-C, SIGTERM or SIGHUP (the signal's name is the abort's reason) */
  signal: AbortSignal;
  /** registers an undo step, run after the scenario (last first) with the plain executor */
  cleanup(what: string, step: (exec: Executor) => Promise<void>): void;
  /** a progress line */
  note(line: string): void;
}

export interface Scenario {
  name: string;
  /** what it proves, one line (for --help and the report) */
  title: string;
  /** run only when this option is given (the CLI leaves the scenario out otherwise) */
  optIn?: 'iscsi';
  /**
   * uses only zpool/zfs and POSIX tools, so it also runs on a host that is not FreeBSD but has OpenZFS (the same
   * cmd/zpool and cmd/zfs code); every other scenario is skipped there
   */
  portable?: boolean;
  /** resolves with a one-line detail; throws SkipScenario when the host lacks what it needs */
  run(ctx: ScenarioContext): Promise<string>;
}

export interface ScenarioResult {
  name: string;
  verdict: Verdict;
  detail: string;
  /** cleanup steps that failed (each makes the scenario fail) */
  cleanupErrors: string[];
}

/** Thrown by a scenario when the host lacks a capability: the scenario is skipped, naming it. */
export class SkipScenario extends Error {
  constructor(readonly capability: string) {
    super(capability);
    this.name = 'SkipScenario';
  }
}

/** the signal that stopped the run (the abort's reason), SIGINT when it gave none */
const signalOf = (signal: AbortSignal) => (typeof signal.reason === 'string' && signal.reason.startsWith('SIG') ? signal.reason : 'SIGINT');

export class Interrupted extends Error {
  constructor(signal: string = 'SIGINT') {
    super(`interrupted (${signal}): no further command was started`);
    this.name = 'Interrupted';
  }
}

/** The executor scenarios get: every command also stops on the run's abort, and none starts after it. */
export function interruptible(exec: Executor, signal: AbortSignal): Executor {
  return {
    kind: exec.kind,
    async run(argv: string[], opts: RunOptions = {}): Promise<RunResult> {
      if (signal.aborted) throw new Interrupted(signalOf(signal));
      const both = opts.signal ? AbortSignal.any([opts.signal, signal]) : signal;
      const res = await exec.run(argv, { ...opts, signal: both });
      if (signal.aborted) throw new Interrupted(signalOf(signal));
      return res;
    },
    start: exec.start
      ? (argv: string[], opts?: { timeoutMs?: number }): StartedCommand => {
          if (signal.aborted) throw new Interrupted(signalOf(signal));
          const cmd = exec.start!(argv, opts);
          const kill = () => cmd.kill();
          signal.addEventListener('abort', kill, { once: true });
          const off = () => signal.removeEventListener('abort', kill);
          cmd.done.then(off, off);
          return cmd;
        }
      : undefined,
  };
}

const firstLine = (s: string) => s.trim().split('\n')[0] ?? '';

export interface RunCheckOptions {
  options: CheckOptions;
  caps: HostCapabilities;
  signal: AbortSignal;
  note?: (line: string) => void;
  /** called as each scenario ends (the CLI prints its line then) */
  onResult?: (r: ScenarioResult) => void;
  /** why a scenario is not run on this host (e.g. it is not FreeBSD); undefined: it runs */
  skip?: (s: Scenario) => string | undefined;
}

export async function runScenarios(exec: Executor, scenarios: Scenario[], o: RunCheckOptions): Promise<ScenarioResult[]> {
  const results: ScenarioResult[] = [];
  const guarded = interruptible(exec, o.signal);
  for (const s of scenarios) {
    let result: ScenarioResult;
    const skipped = o.skip?.(s);
    if (o.signal.aborted) {
      result = { name: s.name, verdict: 'skipped', detail: 'not run: interrupted', cleanupErrors: [] };
    } else if (skipped) {
      result = { name: s.name, verdict: 'skipped', detail: skipped, cleanupErrors: [] };
    } else {
      const steps: { what: string; step: (exec: Executor) => Promise<void> }[] = [];
      const note = (line: string) => o.note?.(`${s.name}: ${line}`);
      try {
        const detail = await s.run({
          exec: guarded,
          options: o.options,
          caps: o.caps,
          signal: o.signal,
          note,
          cleanup: (what, step) => steps.push({ what, step }),
        });
        result = { name: s.name, verdict: 'ok', detail, cleanupErrors: [] };
      } catch (e) {
        if (e instanceof SkipScenario) result = { name: s.name, verdict: 'skipped', detail: `missing: ${e.capability}`, cleanupErrors: [] };
        else
          result = {
            name: s.name,
            verdict: 'fail',
            detail: o.signal.aborted ? new Interrupted(signalOf(o.signal)).message : firstLine((e as Error).message),
            cleanupErrors: [],
          };
      }
      // cleanup with the plain executor: it must run after Ctrl-C too
      for (const { what, step } of steps.reverse()) {
        note(`cleanup: ${what}`);
        try {
          await step(exec);
        } catch (e) {
          result.cleanupErrors.push(`${what}: ${firstLine((e as Error).message)}`);
        }
      }
      if (result.cleanupErrors.length) result.verdict = 'fail';
    }
    results.push(result);
    o.onResult?.(result);
  }
  return results;
}

export const formatResult = (r: ScenarioResult) =>
  `${r.verdict.padEnd(7)} ${r.name}: ${r.detail}${r.cleanupErrors.length ? `; cleanup failed: ${r.cleanupErrors.join('; ')}` : ''}`;
