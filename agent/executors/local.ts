import { execFile, spawn } from 'node:child_process';
import { constants } from 'node:os';
import type { Executor, RunOptions, RunResult, StartedCommand } from './executor.ts';
import { programPath } from './program-path.ts';

/**
 * Runs commands on this host with execFile: an argv array, never a shell, so no argument is ever
 * interpreted. Output is parsed by the drivers, so the C locale is forced (stable number and date formats).
 * Programs are found through `path`, by default the inherited PATH plus /usr/local/sbin and /usr/local/bin
 * (./program-path.ts: an rc.d service inherits neither, and packages such as libvirt install there).
 *
 * Results: the command's exit code; 124 when it ran past its timeout (killed), 127 when the program does
 * not exist, 128+N when a signal killed it. Output beyond `maxBuffer` is an error of the executor (thrown).
 */
export interface LocalExecutorOptions {
  /** per-command timeout when the caller gives none (default 10 minutes) */
  defaultTimeoutMs?: number;
  /** stdout/stderr limit for run() (default 64 MiB) */
  maxBuffer?: number;
  /** prepended to every argv, e.g. ['sudo', '-n'] */
  prefix?: string[];
  env?: NodeJS.ProcessEnv;
  /** the children's PATH (HM_AGENT_PATH); default: the inherited one with the package directories added */
  path?: string;
}

export const TIMEOUT_CODE = 124;
const NOT_FOUND_CODE = 127;

const signalCode = (signal: string | null | undefined) => 128 + ((signal && constants.signals[signal as keyof typeof constants.signals]) || 0);

/** SIGKILL to a detached command's whole process group (the command and whatever it started). */
function killGroup(pid: number | undefined): void {
  if (!pid) return;
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export class LocalExecutor implements Executor {
  readonly kind = 'local' as const;
  private readonly env: NodeJS.ProcessEnv;

  constructor(private readonly opts: LocalExecutorOptions = {}) {
    const env = opts.env ?? process.env;
    // libuv looks the program up in the PATH of the environment the child gets (uv_spawn, execvpe semantics)
    this.env = { ...env, PATH: programPath(opts.path, env.PATH), LC_ALL: 'C' };
  }

  private argv(argv: string[]): [string, string[]] {
    if (!argv.length) throw new Error('empty argv');
    const full = [...(this.opts.prefix ?? []), ...argv];
    return [full[0], full.slice(1)];
  }

  run(argv: string[], opts: RunOptions = {}): Promise<RunResult> {
    const [file, args] = this.argv(argv);
    if (opts.signal) return this.runStoppable(argv, opts, opts.signal);
    const timeoutMs = opts.timeoutMs ?? this.opts.defaultTimeoutMs ?? 600_000;
    return new Promise((resolve, reject) => {
      const child = execFile(
        file,
        args,
        { encoding: 'utf8', maxBuffer: this.opts.maxBuffer ?? 64 * 1024 * 1024, timeout: timeoutMs, killSignal: 'SIGKILL', env: this.env },
        (err, stdout, stderr) => {
          if (!err) return resolve({ code: 0, stdout, stderr });
          const e = err as NodeJS.ErrnoException & { code?: string | number; killed?: boolean; signal?: string | null };
          if (e.code === 'ENOENT') return resolve({ code: NOT_FOUND_CODE, stdout, stderr: `${stderr}${file}: not found\n` });
          if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') return reject(new Error(`${argv[0]}: output exceeds the executor's buffer`));
          if (e.killed) return resolve({ code: TIMEOUT_CODE, stdout, stderr: `${stderr}${argv[0]}: timed out after ${timeoutMs} ms\n` });
          if (typeof e.code === 'number') return resolve({ code: e.code, stdout, stderr });
          if (e.signal) return resolve({ code: signalCode(e.signal), stdout, stderr });
          reject(err);
        },
      );
      // a command that exits without reading its input must not fail the run with EPIPE
      child.stdin?.on('error', () => undefined);
      child.stdin?.end(opts.stdin ?? '');
    });
  }

  /**
   * run() for a command a cancel may stop (execFile cannot start a process group): started in its own group,
   * its output collected; on abort the whole group gets SIGKILL and the result is 137 with a note.
   */
  private async runStoppable(argv: string[], opts: RunOptions, signal: AbortSignal): Promise<RunResult> {
    const cmd = this.start(argv, { timeoutMs: opts.timeoutMs });
    const max = this.opts.maxBuffer ?? 64 * 1024 * 1024;
    const chunks: Buffer[] = [];
    let size = 0;
    let overflow = false;
    cmd.stdout.on('data', (c: Buffer) => {
      size += c.length;
      if (size > max) {
        overflow = true;
        cmd.kill();
      } else chunks.push(c);
    });
    let cancelled = false;
    const cancel = () => {
      cancelled = true;
      cmd.kill();
    };
    if (signal.aborted) cancel();
    else signal.addEventListener('abort', cancel, { once: true });
    cmd.stdin.end(opts.stdin ?? '');
    const { code, stderr } = await cmd.done.finally(() => signal.removeEventListener('abort', cancel));
    if (overflow) throw new Error(`${argv[0]}: output exceeds the executor's buffer`);
    const stdout = Buffer.concat(chunks).toString('utf8');
    if (cancelled) return { code: signalCode('SIGKILL'), stdout, stderr: `${stderr}${argv[0]}: stopped: the task was cancelled\n` };
    return { code, stdout, stderr };
  }

  start(argv: string[], opts: { timeoutMs?: number } = {}): StartedCommand {
    const [file, args] = this.argv(argv);
    // its own process group: kill() stops what the command started too
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'], env: this.env, detached: true });
    const timeoutMs = opts.timeoutMs ?? this.opts.defaultTimeoutMs ?? 600_000;
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup(child.pid);
    }, timeoutMs);
    let stderr = '';
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (c: string) => {
      if (stderr.length < 1 << 20) stderr += c;
    });
    child.stdin.on('error', () => undefined);
    const done = new Promise<{ code: number; stderr: string }>((resolve) => {
      child.once('error', (e: NodeJS.ErrnoException) => {
        clearTimeout(timer);
        resolve({ code: e.code === 'ENOENT' ? NOT_FOUND_CODE : 1, stderr: `${stderr}${file}: ${e.code === 'ENOENT' ? 'not found' : e.message}\n` });
      });
      child.once('close', (code, signal) => {
        clearTimeout(timer);
        if (timedOut) resolve({ code: TIMEOUT_CODE, stderr: `${stderr}${argv[0]}: timed out after ${timeoutMs} ms\n` });
        else resolve({ code: code ?? signalCode(signal), stderr });
      });
    });
    return { stdin: child.stdin, stdout: child.stdout, done, kill: () => killGroup(child.pid) };
  }
}
