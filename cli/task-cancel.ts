import type { Command } from 'commander';
import { ApiError } from './client.ts';
import { clientFor, flagsOf, type Io } from './context.ts';
import { json, safe } from './output.ts';
import { TASK_EXIT, watchTask } from './watch.ts';
import type { ApiData } from '#generated/api-types.ts';

/**
 * `hostmgr task cancel` exits 0 only when the task ends cancelled: a cancel that came too late (the task had
 * already ended: 409 task_already_finished, or it ended some other way while its agent was stopping it) exits
 * CANCEL_TOO_LATE, so a script never takes a finished task for a cancelled one.
 */
export const CANCEL_TOO_LATE = 6;

export async function cancelTask(cmd: Command, io: Io, id: number): Promise<void> {
  const flags = flagsOf(cmd);
  const client = clientFor(cmd, io);
  let answer: Awaited<ReturnType<typeof client.call<ApiData['POST /api/tasks/{id}/cancel']>>>;
  try {
    answer = await client.call<ApiData['POST /api/tasks/{id}/cancel']>('POST', `/tasks/${id}/cancel`);
  } catch (err) {
    if (!(err instanceof ApiError) || err.envelope.message !== 'task_already_finished') throw err;
    io.stderr.write(`error: too late: ${safe(err.envelope.error)}; nothing was cancelled\n`);
    io.exitCode = CANCEL_TOO_LATE;
    return;
  }
  if (flags.json) io.stdout.write(json(answer.envelope.data));
  if (answer.taskId === null) {
    // 200: a queued task, cancelled at once
    if (!flags.json) io.stdout.write(`task ${id} cancelled\n`);
    return;
  }
  const out = flags.json ? io.stderr : io.stdout;
  out.write(`task ${id}: cancel requested; its agent stops it and undoes what it can${flags.detach ? `; follow it: hostmgr task watch ${id}` : ''}\n`);
  if (flags.detach) return;
  const code = await watchTask(client, id, { stdout: out, detach: io.detach });
  if (code === 130) io.exitCode = code;
  else if (code === TASK_EXIT.cancelled) io.exitCode = 0;
  else {
    // watchTask has said how it ended (success, failed, interrupted)
    out.write(`too late: task ${id} ended before the cancel took effect\n`);
    io.exitCode = CANCEL_TOO_LATE;
  }
}
