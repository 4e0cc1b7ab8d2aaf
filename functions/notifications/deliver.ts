import { getDb } from '#store/db';
import { log } from '#shared/log/logger';
import { deliveryPass, pruneDeliveries } from '#domain/notifications/delivery/worker';

/**
 * Scheduled (deliver.trigger.ts: every minute), not an HTTP endpoint: sends due outbox rows, passes until
 * none is left or the time is nearly up; then deletes ended deliveries past their retention.
 */
export const handler = async () => {
  const r = await deliveryPass(getDb(), Date.now() + 45_000);
  const pruned = await pruneDeliveries(getDb());
  const total = { delivered: r.delivered.length, retrying: r.retrying.length, gaveUp: r.gaveUp.length };
  log.info('notification delivery', { ...total, pruned });
  return total;
};
