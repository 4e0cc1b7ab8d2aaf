import type { Executor, RunResult } from './executor.ts';

/**
 * `source | target` across executors, e.g. `zfs send` here piped into `zfs recv` on another host over SSH:
 * the source's stdout streams into the target's stdin without being held in memory. When one side fails
 * the other is stopped, so a broken receive does not leave a send running (and vice versa).
 */
export interface PipedResult {
  source: { code: number; stderr: string };
  target: RunResult;
  /** bytes that went through the pipe */
  bytes: number;
}

export async function runPiped(
  source: Executor,
  sourceArgv: string[],
  target: Executor,
  targetArgv: string[],
  opts: { timeoutMs?: number; onBytes?: (total: number) => void } = {},
): Promise<PipedResult> {
  if (!source.start || !target.start) {
    // executors without streams (test fakes): buffer through
    const src = await source.run(sourceArgv, { timeoutMs: opts.timeoutMs });
    const dst = await target.run(targetArgv, { stdin: src.stdout, timeoutMs: opts.timeoutMs });
    return { source: { code: src.code, stderr: src.stderr }, target: dst, bytes: Buffer.byteLength(src.stdout) };
  }
  const src = source.start(sourceArgv, { timeoutMs: opts.timeoutMs });
  // the source of a pipe reads nothing: end its input (a simulated command runs once its stdin has ended)
  src.stdin.end();
  const dst = target.start(targetArgv, { timeoutMs: opts.timeoutMs });
  let bytes = 0;
  src.stdout.on('data', (c: Buffer) => {
    bytes += c.length;
    opts.onBytes?.(bytes);
  });
  src.stdout.pipe(dst.stdin);
  const out: Buffer[] = [];
  dst.stdout.on('data', (c: Buffer) => out.push(Buffer.isBuffer(c) ? c : Buffer.from(c)));
  let sourceDone = false;
  const stopSource = () => {
    if (sourceDone) return;
    src.kill();
    // a killed sender's remaining output is drained, or its stream would never end
    src.stdout.unpipe(dst.stdin);
    src.stdout.resume();
  };
  const [s, d] = await Promise.all([
    src.done.then((r) => {
      sourceDone = true;
      if (r.code !== 0) dst.kill();
      return r;
    }),
    dst.done.then((r) => {
      // the receiver is gone (failed, or done early): nothing more will be read from the sender
      stopSource();
      return r;
    }),
  ]);
  return { source: s, target: { code: d.code, stdout: Buffer.concat(out).toString('utf8'), stderr: d.stderr }, bytes };
}
