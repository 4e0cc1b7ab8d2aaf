import type { Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { deliverDue } from '#domain/notifications/delivery/worker';

/**
 * What the scheduled `notifications-deliver` function does in AWS, in this process (serverless-offline's schedule is switched off by HM_SCHEDULES_ENABLED=false): one
 * delivery pass every `everyMs` in this process, and again at once while a pass found work, so a notification
 * raised now reaches its channels within about `everyMs`. Returns a stop function.
 */
export function startDeliveryLoop(db: Kysely<Database>, everyMs: number, log: (line: string) => void): () => Promise<void> {
  let stopped = false;
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> | null = null;
  const pass = async (): Promise<void> => {
    try {
      const r = await deliverDue(db);
      const n = r.delivered.length + r.retrying.length + r.gaveUp.length;
      if (n) log(`delivery: delivered ${r.delivered.join(',') || '-'}; retrying ${r.retrying.join(',') || '-'}; gave up ${r.gaveUp.join(',') || '-'}`);
      if (n && !stopped) return pass();
    } catch (err) {
      log(`delivery: ${(err as Error).message}`);
    }
  };
  const tick = () => {
    running = pass().finally(() => {
      running = null;
      if (!stopped) timer = setTimeout(tick, everyMs);
    });
  };
  timer = setTimeout(tick, everyMs);
  return async () => {
    stopped = true;
    clearTimeout(timer);
    await running;
  };
}
