import { runChecked, type Executor } from '../../executors/executor.ts';
import { sendInto } from './send-receive.ts';
import { parseSendDryRun } from './replication.ts';
import { streamFlags } from './stream-flags.ts';

/**
 * One backup stream: `zfs send -R -w|-L -c [-I @common] src@snap` here (raw when the source is encrypted,
 * stream-flags.ts) piped into `zfs recv -u -x mountpoint -o canmount=noauto -v <target>` on the target host
 * (over SSH), full or incremental, with its size estimated first (`zfs send -nvP`).
 *
 * `-I` (not `-i`): every snapshot between the common one and the new one is sent, so snapshots of a run that
 * was cut off (taken here, never received there) arrive with the next run.
 *
 * No `-F` on the receive. With `-R`, `zfs recv -F` would also destroy target snapshots that are not in the
 * stream — an operator's, or another job's sharing the target — and roll back whatever was written on the
 * target; a full send with `-F` would overwrite an existing dataset that may not be ours. Without it a receive
 * that does not fit fails with zfs's own reason (the event shows it) and nothing is destroyed.
 *
 * The copy must never be mounted on the backup host, now or after its next boot: once mounted, any write (or
 * atime update) makes the next incremental fail ("destination … has been modified since most recent snapshot",
 * libzfs_sendrecv.c on the kernel's ETXTBSY), and `-R` carries the source's local `mountpoint` — a live path such
 * as /usr/local/jails/web, which `zfs mount -a` at boot would overlay (OpenZFS mounts over non-empty directories
 * by default). So: `-u` (not mounted by this receive), `-x mountpoint` (every received dataset inherits its
 * mountpoint from the target's parent instead of carrying the source's path) and `-o canmount=noauto` (the
 * copy's root is skipped by `zfs mount -a`; zfs-receive(8): `-o` sets it on the root, a non-inheritable property
 * stays as sent on the descendants, which mount under the copy's own inherited path).
 */
export const sendArgv = (source: string, snap: string, from: string | null, encrypted: boolean) => [
  'zfs',
  'send',
  '-R',
  ...streamFlags(encrypted),
  ...(from ? ['-I', `@${from}`] : []),
  `${source}@${snap}`,
];
export const recvArgv = (target: string) => ['zfs', 'recv', '-u', '-x', 'mountpoint', '-o', 'canmount=noauto', '-v', target];

/** Bytes the stream will carry, from `zfs send -nvP` (its `size` line). */
export async function estimateStream(exec: Executor, source: string, snap: string, from: string | null, encrypted: boolean): Promise<number> {
  const argv = sendArgv(source, snap, from, encrypted);
  return parseSendDryRun(await runChecked(exec, [...argv.slice(0, 2), '-nvP', ...argv.slice(2)])).bytes;
}

export interface StreamResult {
  bytes: number;
  /** what `zfs recv -v` printed */
  output: string;
}

/** Streams source → target; `onBytes` sees the running byte count. Throws with the failing side's own message. */
export async function streamBackup(
  source: Executor,
  target: Executor,
  from: string | null,
  src: { dataset: string; snap: string; encrypted: boolean },
  dst: string,
  onBytes?: (n: number) => void,
): Promise<StreamResult> {
  const r = await sendInto(source, sendArgv(src.dataset, src.snap, from, src.encrypted), target, recvArgv(dst), onBytes);
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
