import spec from '#spec/certificates/retry';
import { endpoint } from '#http/endpoint';
import { acceptTask } from '#http/accept';
import { certificateOfTask, checkCertificateRetry, planCertificateRetry } from '#domain/certificates/retry';
import type { Input } from './retry.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path }, ctx) => {
  await checkCertificateRetry(ctx.db, path.id);
  return acceptTask(ctx, {
    message: 'certificate_issuance_queued',
    plan: (trx) => planCertificateRetry(trx, path.id),
    data: (task, trx) => certificateOfTask(trx, task.payload),
  });
});
