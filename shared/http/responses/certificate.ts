import type { CertificateRecord } from '#domain/certificates/record';
import { CERTIFICATE_TYPES } from '#domain/certificates/rules';
import { describes } from './same.ts';
import { isoTime } from './time.ts';

/** A timestamp of a certificate, '' when absent (the record's convention for absent strings). */
const isoOrEmpty = { anyOf: [{ type: 'string', const: '' }, isoTime] } as const;

const properties = {
  id: { type: 'integer', minimum: 1 },
  nodeId: { type: 'string' },
  name: { type: 'string' },
  domain: { type: 'string' },
  type: { type: 'string', enum: CERTIFICATE_TYPES },
  active: { type: 'boolean' },
  pending: { type: 'boolean' },
  ready: { type: 'boolean' },
  renewable: { type: 'boolean' },
  staging: { type: 'boolean' },
  /** SHA-256 of the DER, colon-separated upper-case hex pairs; '' before one is installed */
  fingerprint: { type: 'string', pattern: '^$|^[0-9A-F]{2}(:[0-9A-F]{2}){31}$' },
  issuanceStatus: { type: 'string', enum: ['queued', 'submitting', 'processing', 'ready', 'failed'] },
  issuanceOperation: { type: 'string', enum: ['initial', 'renewal'] },
  issuanceError: { type: 'string' },
  issuanceRetryAt: isoOrEmpty,
  notBefore: isoOrEmpty,
  notAfter: isoOrEmpty,
  /** 0 when none */
  dynamicDnsEntryId: { type: 'integer', minimum: 0 },
  updatedAt: isoTime,
} as const;
const required = Object.keys(properties) as (keyof typeof properties)[];

/** The Managed TLS certificate record (spec part 2) plus `nodeId` (`toCertificateRecord`). */
export const certificateSchema = describes<CertificateRecord>()({
  title: 'Certificate',
  type: 'object',
  properties,
  required,
  additionalProperties: false,
} as const);

/** The record of a certificate just created, with the task that installs or issues it. */
export const createdCertificateSchema = describes<CertificateRecord & { taskId: number }>()({
  title: 'CertificateCreated',
  type: 'object',
  properties: { ...properties, taskId: { type: 'integer', minimum: 1 } },
  required: [...required, 'taskId'],
  additionalProperties: false,
} as const);
