import type { Executor, RunOptions, RunResult, StartedCommand } from './executor.ts';

/**
 * An executor for one task that stops the command running when `cancel` is aborted: run() passes the signal
 * on (local: the process group gets SIGKILL; SSH: the remote command gets KILL and its channel closes), and a
 * started stream is killed. Commands started after the abort run normally: they are the job's undo step.
 */
export function abortable(exec: Executor, cancel: AbortSignal): Executor {
  const live = () => (cancel.aborted ? undefined : cancel);
  const wrapped: Executor = {
    kind: exec.kind,
    run(argv: string[], opts: RunOptions = {}): Promise<RunResult> {
      const signal = live();
      return exec.run(argv, signal ? { ...opts, signal } : opts);
    },
    close: exec.close ? () => exec.close!() : undefined,
  };
  if (exec.start) {
    const start = exec.start.bind(exec);
    wrapped.start = (argv: string[], opts?: { timeoutMs?: number }): StartedCommand => {
      const cmd = start(argv, opts);
      const signal = live();
      if (signal) {
        const kill = () => cmd.kill();
        const off = () => signal.removeEventListener('abort', kill);
        signal.addEventListener('abort', kill, { once: true });
        cmd.done.then(off, off);
      }
      return cmd;
    };
  }
  return wrapped;
}
