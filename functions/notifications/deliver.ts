import { getDb } from '#store/db';
import { deliverDue, pruneDeliveries } from '#domain/notifications/delivery/worker';

/**
 * Scheduled (deliver.trigger.ts: every minute), not an HTTP endpoint: sends due outbox rows, passes until
 * none is left or the time is nearly up; then deletes ended deliveries past their retention.
 */
export const handler = async () => {
  const until = Date.now() + 45_000;
  const total = { delivered: 0, retrying: 0, gaveUp: 0 };
  while (Date.now() < until) {
    const r = await deliverDue(getDb());
    total.delivered += r.delivered.length;
    total.retrying += r.retrying.length;
    total.gaveUp += r.gaveUp.length;
    if (r.delivered.length + r.retrying.length + r.gaveUp.length === 0) break;
  }
  const pruned = await pruneDeliveries(getDb());
  console.log(JSON.stringify({ level: 'info', msg: 'notification delivery', ...total, pruned }));
  return total;
};
