import { runChecked, type Executor } from '../executors/executor.ts';
import { sendInto } from './zfs-pipe.ts';
import { parseSendDryRun } from './jail-replication.ts';

/**
 * One backup stream: `zfs send -R [-I @common] src@snap` here piped into `zfs recv -u -v <target>` on the
 * target host (over SSH), full or incremental, with its size estimated first (`zfs send -nvP`).
 *
 * `-I` (not `-i`): every snapshot between the common one and the new one is sent, so snapshots of a run that
 * was cut off (taken here, never received there) arrive with the next run.
 *
 * No `-F` on the receive. With `-R`, `zfs recv -F` would also destroy target snapshots that are not in the
 * stream — an operator's, or another job's sharing the target — and roll back whatever was written on the
 * target; a full send with `-F` would overwrite an existing dataset that may not be ours. Without it a receive
 * that does not fit fails with zfs's own reason (the event shows it) and nothing is destroyed. `-u`: the copy
 * is not mounted, so nothing modifies it between runs and the next incremental applies cleanly.
 */
export const sendArgv = (source: string, snap: string, from: string | null) => ['zfs', 'send', '-R', ...(from ? ['-I', `@${from}`] : []), `${source}@${snap}`];
export const recvArgv = (target: string) => ['zfs', 'recv', '-u', '-v', target];

/** Bytes the stream will carry, from `zfs send -nvP` (its `size` line). */
export async function estimateStream(exec: Executor, source: string, snap: string, from: string | null): Promise<number> {
  const argv = sendArgv(source, snap, from);
  return parseSendDryRun(await runChecked(exec, [...argv.slice(0, 2), '-nvP', ...argv.slice(2)])).bytes;
}

export interface StreamResult {
  bytes: number;
  /** what `zfs recv -v` printed */
  output: string;
}

/** Streams source → target; `onBytes` sees the running byte count. Throws with the failing side's own message. */
export async function streamBackup(source: Executor, target: Executor, from: string | null, src: { dataset: string; snap: string }, dst: string, onBytes?: (n: number) => void): Promise<StreamResult> {
  const r = await sendInto(source, sendArgv(src.dataset, src.snap, from), target, recvArgv(dst), onBytes);
  return { bytes: r.bytes, output: r.target.stdout + r.target.stderr };
}

/** Reports `bytes / estimate` every `everyMs` while a stream runs (a timer: a stalled stream still reports). */
export function progressTicker(everyMs: number, report: (bytes: number) => Promise<void>) {
  let bytes = 0;
  let inFlight = false;
  const timer = setInterval(() => {
    if (inFlight) return;
    inFlight = true;
    void report(bytes).finally(() => (inFlight = false));
  }, everyMs);
  return {
    onBytes: (n: number) => void (bytes = n),
    stop: () => clearInterval(timer),
  };
}
