import { createHash } from 'node:crypto';

/**
 * Input rules of backup jobs, stated once: ZFS dataset names, the pinned SSH host key, retention bounds.
 */

/** Job snapshots kept on each side. */
export const RETENTION_MIN = 1;
export const RETENTION_MAX = 1000;

/** ZFS's limit on a full dataset name (ZFS_MAX_DATASET_NAME_LEN - 1). */
export const DATASET_MAX = 255;

/**
 * A filesystem or volume name: `pool[/child…]`, components of letters, digits, `_ - . :` (ZFS's
 * valid characters), the pool starting with a letter; no snapshot (`@`) or bookmark (`#`) part.
 */
export const DATASET_PATTERN = '^[A-Za-z][A-Za-z0-9_.:-]*(/[A-Za-z0-9_.:-]+)*$';
const DATASET = new RegExp(DATASET_PATTERN);

/** Why `name` is not a dataset name ZFS accepts, or undefined. */
export function datasetProblem(name: string): string | undefined {
  if (name.length > DATASET_MAX) return `must be at most ${DATASET_MAX} characters`;
  if (!DATASET.test(name)) return 'must be a ZFS dataset name: pool/child/…, letters, digits and _ - . : only, no @ or #';
  if (name.split('/').some((c) => c === '.' || c === '..')) return 'must not have a "." or ".." component';
  return undefined;
}

/** Host key types an SSH server presents (OpenSSH's `ssh-keyscan` / known_hosts names). */
const HOST_KEY_TYPES = ['ssh-ed25519', 'ecdsa-sha2-nistp256', 'ecdsa-sha2-nistp384', 'ecdsa-sha2-nistp521', 'ssh-rsa'];

/**
 * A pinned host key as known_hosts and `ssh-keyscan` write it: `<type> <base64 key blob>` (a trailing comment
 * is allowed and dropped). The blob must itself start with the type, as every SSH public key blob does.
 */
export function parseHostKey(text: string): { type: string; blob: Buffer } | string {
  const [type, b64] = text.trim().split(/\s+/);
  if (!type || !b64) return 'must be "<type> <base64>", as ssh-keyscan prints it (e.g. "ssh-ed25519 AAAAC3…")';
  if (!HOST_KEY_TYPES.includes(type)) return `has an unknown key type "${type}" (expected one of ${HOST_KEY_TYPES.join(', ')})`;
  if (!/^[A-Za-z0-9+/]+={0,2}$/.test(b64)) return 'has a key part that is not base64';
  const blob = Buffer.from(b64, 'base64');
  const len = blob.length >= 4 ? blob.readUInt32BE(0) : -1;
  if (len !== type.length || blob.subarray(4, 4 + len).toString('latin1') !== type) return `has a key blob that is not a ${type} key`;
  return { type, blob };
}

/** `<type> <base64>` (comment dropped), or the problem. */
export function normalHostKey(text: string): string | { problem: string } {
  const k = parseHostKey(text);
  return typeof k === 'string' ? { problem: k } : `${k.type} ${k.blob.toString('base64')}`;
}

/** The key's fingerprint as `ssh-keygen -l` prints it (`SHA256:<base64, unpadded>`): what an SSH executor pins. */
export function hostKeyFingerprint(text: string): string {
  const k = parseHostKey(text);
  if (typeof k === 'string') throw new Error(`host key ${k}`);
  return `SHA256:${createHash('sha256').update(k.blob).digest('base64').replace(/=+$/, '')}`;
}
