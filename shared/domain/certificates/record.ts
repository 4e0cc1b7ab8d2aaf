import type { CertificateRow } from '#store/tables';

/**
 * The Managed TLS certificate record of the spec (part 2), plus `nodeId`. Absent values are '' (strings) and
 * 0 (`dynamicDnsEntryId`); timestamps are ISO 8601 in UTC. `fingerprint` is the SHA-256 of the certificate's
 * DER as colon-separated upper-case hex pairs (what `openssl x509 -noout -fingerprint -sha256` prints).
 */
export interface CertificateRecord {
  id: number;
  nodeId: string;
  name: string;
  domain: string;
  type: CertificateRow['type'];
  active: boolean;
  /** an issuance is queued or running */
  pending: boolean;
  /** a certificate is installed on the host */
  ready: boolean;
  /** managed: the renewal scheduler renews it before it expires */
  renewable: boolean;
  staging: boolean;
  fingerprint: string;
  issuanceStatus: CertificateRow['issuance_status'];
  issuanceOperation: CertificateRow['issuance_operation'];
  issuanceError: string;
  issuanceRetryAt: string;
  notBefore: string;
  notAfter: string;
  dynamicDnsEntryId: number;
  updatedAt: string;
}

const ACTIVE_ISSUANCE: ReadonlySet<CertificateRow['issuance_status']> = new Set(['queued', 'submitting', 'processing']);

const isoOrEmpty = (d: Date | null) => (d ? d.toISOString() : '');

export function toCertificateRecord(row: CertificateRow): CertificateRecord {
  return {
    id: row.id,
    nodeId: row.node_id,
    name: row.name,
    domain: row.domain,
    type: row.type,
    active: row.active,
    pending: ACTIVE_ISSUANCE.has(row.issuance_status),
    // a managed certificate stays installed while its renewal runs or failed; the others are installed once, by their task
    ready: row.type === 'managed' ? row.fingerprint !== '' : row.issuance_status === 'ready',
    renewable: row.type === 'managed' && row.fingerprint !== '',
    staging: row.staging,
    fingerprint: row.fingerprint,
    issuanceStatus: row.issuance_status,
    issuanceOperation: row.issuance_operation,
    issuanceError: row.issuance_error,
    issuanceRetryAt: isoOrEmpty(row.issuance_retry_at),
    notBefore: isoOrEmpty(row.not_before),
    notAfter: isoOrEmpty(row.not_after),
    dynamicDnsEntryId: row.dynamic_dns_entry_id ?? 0,
    updatedAt: row.updated_at.toISOString(),
  };
}
