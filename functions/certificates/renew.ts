import { getDb } from '#store/db';
import { log } from '#shared/log/logger';
import { queueDueRenewals } from '#domain/certificates/renewals';

/**
 * Scheduled (renew.trigger.ts: hourly), not an HTTP endpoint: queues the issuance (renewal) of every managed
 * certificate within 30 days of `notAfter`, and of failed renewals whose `issuanceRetryAt` has passed.
 */
export const handler = async () => {
  const queued = await queueDueRenewals(getDb());
  log.info('certificate renewals', { queued });
  return { queued };
};
