import spec from '#spec/certificates/create';
import { endpoint } from '#http/endpoint';
import { created } from '#http/envelope';
import { withTasks } from '#http/accept';
import { createCertificate } from '#domain/certificates/create';
import type { Input } from './create.schema.ts';

export const handler = endpoint<Input>(spec, async ({ body }, ctx) =>
  created('certificate_created', await withTasks(ctx, (trx, enqueue) => createCertificate(trx, enqueue, body))),
);
