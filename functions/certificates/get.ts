import spec from '#spec/certificates/get';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { requireCertificate } from '#domain/certificates/store';
import { certificateViews } from '#domain/certificates/view';
import type { Input } from './get.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path }, { db }) => {
  const [record] = await certificateViews(db, [await requireCertificate(db, path.id)]);
  return ok('certificate_found', record);
});
