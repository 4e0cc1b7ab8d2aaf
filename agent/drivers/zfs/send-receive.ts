import { CommandError, type Executor } from '../../executors/executor.ts';
import { runPiped, type PipedResult } from '../../executors/pipe.ts';

/**
 * `zfs send …` on one host piped into `zfs recv …` on another (backups, restores, migrations): both exit codes
 * are checked, the sending side first, and a failure throws with that side's own message.
 */
export async function sendInto(source: Executor, send: string[], target: Executor, recv: string[], onBytes?: (n: number) => void): Promise<PipedResult> {
  const r = await runPiped(source, send, target, recv, { onBytes });
  if (r.source.code !== 0) throw new CommandError(send, { code: r.source.code, stdout: '', stderr: r.source.stderr });
  if (r.target.code !== 0) throw new CommandError(recv, r.target);
  return r;
}
