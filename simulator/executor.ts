import { setting } from '#shared/config/read';
import { PassThrough } from 'node:stream';
import type { Executor, RunOptions, RunResult, StartedCommand } from '#agent/executors/executor';
import { HostSimulator, type SimulatorOptions } from './simulator.ts';

/**
 * Writes a streamed command's output, at HM_SIM_STREAM_BYTES_PER_S when set (a simulated `zfs send` then
 * takes as long as a real one of that size over a slow link: long enough to cut it off in tests).
 */
async function paced(out: PassThrough, text: string, killed: () => boolean): Promise<void> {
  const rate = setting('HM_SIM_STREAM_BYTES_PER_S');
  if (!(rate > 0)) return void out.end(text);
  const buf = Buffer.from(text);
  const chunk = Math.max(1024, Math.floor(rate / 20));
  for (let at = 0; at < buf.length && !killed(); at += chunk) {
    out.write(buf.subarray(at, at + chunk));
    await new Promise((r) => setTimeout(r, (chunk / rate) * 1000));
  }
  out.end();
}

/**
 * The host simulator as an executor: commands are answered in-process from the simulated
 * host's JSON state, in FreeBSD's formats, so the real drivers run unchanged against it. Programs are found
 * through `path` like execFile finds them (default RC_PATH: the agent's service environment; the agent passes
 * the PATH it gives its children, see scripts/stack/simulated-agent.ts). Streams are
 * buffered (a simulated `zfs send` is small): start() runs the command once its stdin has ended.
 */
export class SimulatorExecutor implements Executor {
  readonly kind = 'simulator' as const;
  readonly simulator: HostSimulator;

  constructor(opts: SimulatorOptions) {
    this.simulator = new HostSimulator(opts);
  }

  /**
   * execFile finds the program through the child's PATH; when it is not there the local executor answers 127
   * and `<program>: not found` (agent/executors/local.ts, ENOENT), and so does this one.
   */
  run(argv: string[], opts: RunOptions = {}): Promise<RunResult> {
    return this.simulator.run(argv, opts.stdin ?? '', true);
  }

  start(argv: string[]): StartedCommand {
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    const chunks: Buffer[] = [];
    stdin.on('data', (c: Buffer) => chunks.push(c));
    let killed = false;
    const done = new Promise<{ code: number; stderr: string }>((resolve) => {
      stdin.on('end', async () => {
        if (killed) return resolve({ code: 137, stderr: '' });
        const res = await this.run(argv, { stdin: Buffer.concat(chunks) });
        await paced(stdout, res.stdout, () => killed);
        resolve({ code: killed ? 137 : res.code, stderr: res.stderr });
      });
    });
    return {
      stdin,
      stdout,
      done,
      kill: () => {
        killed = true;
        stdin.end();
      },
    };
  }
}
