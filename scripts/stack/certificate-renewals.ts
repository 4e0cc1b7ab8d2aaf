import type { Kysely } from 'kysely';
import type { Database } from '#store/tables';
import { queueDueRenewals } from '#domain/certificates/renewals';
import { startPeriodic } from './periodic.ts';

/** The scheduled `certificates-renew` function's stand-in: queue the due certificate renewals every `everyMs`. */
export const startCertificateRenewals = (db: Kysely<Database>, everyMs: number, log: (line: string) => void) =>
  startPeriodic(
    'certificate renewals',
    everyMs,
    async () => {
      const ids = await queueDueRenewals(db);
      return ids.length ? `queued ${ids.join(',')}` : null;
    },
    log,
  );
