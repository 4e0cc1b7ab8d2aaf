import type { Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { sweepTasks } from '#shared/jobs/sweeper';
import { applyTaskOutcome } from '#domain/task-outcomes';

/**
 * What the scheduled `tasks-sweep` function does in AWS (serverless-offline does not run schedules): sweep
 * every `everyMs` in this process. Returns a stop function.
 */
export function startSweeper(db: Kysely<Database>, everyMs: number, log: (line: string) => void): () => Promise<void> {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = sweepTasks(db, { applyOutcome: applyTaskOutcome })
      .then((r) => {
        if (r.sent.length || r.failed.length || r.interrupted.length) log(`sweeper: sent ${r.sent.join(',') || '-'}; failed ${r.failed.join(',') || '-'}; interrupted ${r.interrupted.join(',') || '-'}`);
      })
      .catch((err: Error) => log(`sweeper: ${err.message}`))
      .finally(() => (running = null));
  }, everyMs);
  return async () => {
    clearInterval(timer);
    await running;
  };
}
