import spec from '#spec/certificates/retry';
import { endpoint } from '#http/endpoint';
import { acceptTask } from '#http/accept';
import { certificateOfTask, checkCertificateRetry, planCertificateRetry } from '#domain/certificates/retry';
import type { Input } from './retry.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path }, ctx) =>
  acceptTask(ctx, {
    message: 'certificate_issuance_queued',
    precheck: (db) => checkCertificateRetry(db, path.id),
    plan: (trx) => planCertificateRetry(trx, path.id),
    data: (task, trx) => certificateOfTask(trx, task.payload),
  }),
);
