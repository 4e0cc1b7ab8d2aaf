import spec from '#spec/certificates/get';
import { endpoint } from '#http/endpoint';
import { ok } from '#http/envelope';
import { requireCertificate } from '#domain/certificates/store';
import { toCertificateRecord } from '#domain/certificates/record';
import type { Input } from './get.schema.ts';

export const handler = endpoint<Input>(spec, async ({ path }, { db }) => ok('certificate_found', toCertificateRecord(await requireCertificate(db, path.id))));
