import { ValidationError } from '#shared/errors/domain-errors';

/**
 * E15's input rules. A snapshot is given as `name`, `@name` or `dataset@name` (the job's dataset only); ZFS
 * name components use `[A-Za-z0-9_.:-]`, and a whole name is at most 255 characters. An encryption key comes
 * with its format: `passphrase` (8–512 characters), `hex` (64 hex digits) or `raw` (32 bytes, base64-encoded
 * in JSON).
 */
export const ZFS_COMPONENT = '[A-Za-z0-9_.:-]+';
export const SNAPSHOT_PATTERN = `^(?:(?:${ZFS_COMPONENT}(?:/${ZFS_COMPONENT})*)?@)?${ZFS_COMPONENT}$`;
export const ZFS_NAME_MAX = 255;
export const KEY_FORMATS = ['passphrase', 'hex', 'raw'] as const;
export type KeyFormat = (typeof KEY_FORMATS)[number];

/** The snapshot's name after `@`; 400 when it names a dataset other than the job's. */
export function snapshotNameOf(spec: string, dataset: string): string {
  const at = spec.indexOf('@');
  if (at < 0) return spec;
  const ds = spec.slice(0, at);
  if (ds && ds !== dataset) throw new ValidationError([{ field: 'body.snapshot', problem: `names dataset ${ds}, but the job restores ${dataset}` }]);
  return spec.slice(at + 1);
}

const RAW_KEY_BYTES = 32;

/** 400 naming the field when a key and its format do not go together. */
export function checkEncryptionKey(key: string | undefined, format: KeyFormat | undefined): void {
  if (key === undefined && format === undefined) return;
  if (key === undefined) throw new ValidationError([{ field: 'body.encryptionKey', problem: 'is required with encryptionKeyFormat' }]);
  if (format === undefined) throw new ValidationError([{ field: 'body.encryptionKeyFormat', problem: 'is required with encryptionKey' }]);
  const problem =
    format === 'hex'
      ? /^[0-9A-Fa-f]{64}$/.test(key)
        ? null
        : 'must be 64 hexadecimal digits for keyformat hex'
      : format === 'raw'
        ? /^[A-Za-z0-9+/]+={0,2}$/.test(key) && Buffer.from(key, 'base64').length === RAW_KEY_BYTES
          ? null
          : 'must be 32 bytes, base64-encoded, for keyformat raw'
        : key.length >= 8 && key.length <= 512
          ? null
          : 'must be 8–512 characters for keyformat passphrase';
  if (problem) throw new ValidationError([{ field: 'body.encryptionKey', problem }]);
}
