/**
 * What a certificate's name and domain may be: the name becomes the installed files' names on the host
 * (`/usr/local/etc/ssl/hostmgr/<name>.crt|.key`), the domain is what the ACME server validates (HTTP-01, so no
 * wildcards): a fully qualified DNS name of letter-digit-hyphen labels.
 */
export const certificateNameSchema = { type: 'string', pattern: '^[a-z0-9][a-z0-9._-]{0,62}$', maxLength: 63 } as const;
export const certificateDomainSchema = {
  type: 'string',
  maxLength: 253,
  pattern: '^(?=.{1,253}$)([a-zA-Z0-9]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?\\.)+[a-zA-Z]([a-zA-Z0-9-]{0,61}[a-zA-Z0-9])?$',
} as const;
export const CERTIFICATE_TYPES = ['managed', 'imported', 'self-signed'] as const;
