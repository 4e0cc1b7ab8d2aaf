import type { Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { queueDueRenewals } from '#domain/certificates/renewals';

/**
 * What the scheduled `certificates-renew` function does in AWS (serverless-offline runs no schedules): queue
 * the due certificate renewals every `everyMs` in this process. Returns a stop function.
 */
export function startCertificateRenewals(db: Kysely<Database>, everyMs: number, log: (line: string) => void): () => Promise<void> {
  let running: Promise<unknown> | null = null;
  const timer = setInterval(() => {
    if (running) return;
    running = queueDueRenewals(db)
      .then((ids) => {
        if (ids.length) log(`certificate renewals: queued ${ids.join(',')}`);
      })
      .catch((err: Error) => log(`certificate renewals: ${err.message}`))
      .finally(() => (running = null));
  }, everyMs);
  return async () => {
    clearInterval(timer);
    await running;
  };
}
