import type { Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { deliveryPass, pruneDeliveries } from '#domain/notifications/delivery/worker';
import { startPeriodic } from './periodic.ts';

const PRUNE_EVERY_MS = 60_000;

/**
 * The scheduled `notifications-deliver` function's stand-in: a delivery pass every `everyMs` (repeating at once
 * while it finds work), so a notification raised now reaches its channels within about `everyMs`; ended
 * deliveries past their retention are pruned once a minute, as the function does on each run.
 */
export function startDeliveryLoop(db: Kysely<Database>, everyMs: number, log: (line: string) => void): () => Promise<void> {
  let prunedAt = Date.now();
  return startPeriodic(
    'delivery',
    everyMs,
    async () => {
      const r = await deliveryPass(db, Date.now() + 10_000);
      const lines =
        r.delivered.length + r.retrying.length + r.gaveUp.length
          ? [`delivered ${r.delivered.join(',') || '-'}; retrying ${r.retrying.join(',') || '-'}; gave up ${r.gaveUp.join(',') || '-'}`]
          : [];
      if (Date.now() - prunedAt >= PRUNE_EVERY_MS) {
        prunedAt = Date.now();
        const pruned = await pruneDeliveries(db);
        if (pruned) lines.push(`pruned ${pruned} ended events`);
      }
      return lines.length ? lines.join('; ') : null;
    },
    log,
  );
}
