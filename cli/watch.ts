import { SingleBar } from 'cli-progress';
import { ApiError, UnreachableError, type Client } from './client.ts';
import { safe } from './output.ts';
import type { ApiData } from '#generated/api-types.ts';

/** A task as GET /api/tasks/{id} answers it. */
type TaskView = ApiData['GET /api/tasks/{id}'];

const FINAL = new Set(['success', 'failed', 'interrupted', 'cancelled']);

/**
 * A poll that failed for a reason that passes (the store busy: 503; throttled: 429; a gateway: 502/504; no
 * connection) is asked again, up to this many times in a row, waiting longer each time (to 5 s): a person
 * following a long task should not lose it to one busy moment. Anything else ends the watch with its error.
 */
const MAX_MISSED_POLLS = 12;
const passing = (err: unknown) => err instanceof UnreachableError || (err instanceof ApiError && [429, 502, 503, 504].includes(err.status));

/** Exit codes by how the task ended: 0 success; failed 3, cancelled 4, interrupted 5 (1 and 2 are the CLI's own). */
export const TASK_EXIT: Record<string, number> = { success: 0, failed: 3, cancelled: 4, interrupted: 5 };

export interface WatchOptions {
  /** a terminal gets a progress bar redrawn in place; anything else one plain line per change */
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  /** how often to ask; the default suits a person watching */
  pollMs?: number;
  /** resolves when the user asks to detach (Ctrl-C) */
  detach: Promise<void>;
}

/**
 * Follows a task until it ends (or the user detaches), showing phase and percent; returns the exit code.
 * Detaching leaves the task running and says how to come back to it or cancel it.
 */
export async function watchTask(client: Client, id: number, o: WatchOptions): Promise<number> {
  const pollMs = o.pollMs ?? 500;
  let detached = false;
  void o.detach.then(() => (detached = true));
  const write = (text: string) => void o.stdout.write(text);
  const bar = o.stdout.isTTY
    ? new SingleBar({ format: `task ${id} [{bar}] {percentage}% | {phase}`, hideCursor: true, barsize: 30, stream: o.stdout as NodeJS.WriteStream })
    : null;
  let last = '';
  let task: TaskView | null = null;
  let missed = 0;
  const pause = (ms: number) => Promise.race([new Promise((r) => setTimeout(r, ms)), o.detach]);
  bar?.start(100, 0, { phase: 'queued' });
  try {
    while (!detached) {
      try {
        task = (await client.call<TaskView>('GET', `/tasks/${id}`)).envelope.data;
        missed = 0;
      } catch (err) {
        if (!passing(err) || ++missed > MAX_MISSED_POLLS) throw err;
        await pause(Math.min(5000, pollMs * 2 ** missed));
        continue;
      }
      // phase, kind and error are the API's text: made harmless before they reach the terminal
      const phase = safe(task.phase || task.status, true);
      if (bar) bar.update(task.progress, { phase });
      else {
        const line = `task ${id}: ${safe(task.status, true)}${task.phase ? ` — ${phase}` : ''} ${task.progress}%`;
        if (line !== last) write(`${line}\n`);
        last = line;
      }
      if (FINAL.has(task.status)) break;
      await pause(pollMs);
    }
  } finally {
    bar?.stop();
  }
  if (detached || !task || !FINAL.has(task.status)) {
    write(`\ndetached: task ${id} goes on. Follow it: hostmgr task watch ${id}   Cancel it: hostmgr task cancel ${id}\n`);
    return 130;
  }
  const kind = safe(task.kind, true);
  write(
    task.status === 'success'
      ? `task ${id} (${kind}) ended: success\n`
      : `task ${id} (${kind}) ended: ${task.status}${task.error ? ` — ${safe(task.error)}` : ''}\n`,
  );
  return TASK_EXIT[task.status] ?? 1;
}
