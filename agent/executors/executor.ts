/**
 * How drivers reach a host: an argv array, never a shell string built from input.
 * Implementations: local (execFile) and ssh (node-ssh) here; the host simulator's (simulator/executor.ts)
 * answers in FreeBSD 14's formats and is not part of the production agent.
 */
export interface RunOptions {
  stdin?: string | Buffer;
  timeoutMs?: number;
  /** stops the command when aborted (a cancelled task): local process group, remote command over SSH */
  signal?: AbortSignal;
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * A command started with its streams open, for data that must not be buffered (`zfs send | zfs recv`):
 * write to `stdin` (and end it), read `stdout`; `done` settles when the command has exited and its output
 * has been read. Used through `runPiped` (./pipe.ts).
 */
export interface StartedCommand {
  stdin: NodeJS.WritableStream;
  stdout: NodeJS.ReadableStream;
  /** code and stderr; stdout was streamed */
  done: Promise<{ code: number; stderr: string }>;
  /** stops the command (timeout, the other end of a pipe failed) */
  kill(): void;
}

export interface Executor {
  readonly kind: 'local' | 'ssh' | 'simulator';
  run(argv: string[], opts?: RunOptions): Promise<RunResult>;
  /** starts a command with streaming stdin/stdout (all three executors have it; test fakes may not) */
  start?(argv: string[], opts?: { timeoutMs?: number }): StartedCommand;
  close?(): Promise<void>;
}

/** Raised by drivers when a command fails; the message is the command's own stderr, for the task's error. */
export class CommandError extends Error {
  constructor(
    readonly argv: string[],
    readonly result: RunResult,
  ) {
    super((result.stderr || result.stdout).trim() || `${argv[0]} exited with ${result.code}`);
    this.name = 'CommandError';
  }
}

/** Runs and throws CommandError on a non-zero exit. */
export async function runChecked(exec: Executor, argv: string[], opts?: RunOptions): Promise<string> {
  const res = await exec.run(argv, opts);
  if (res.code !== 0) throw new CommandError(argv, res);
  return res.stdout;
}
