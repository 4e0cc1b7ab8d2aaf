import { createHash } from 'node:crypto';
import { getopt } from '../format.ts';
import { fail, registerCommand } from '../registry.ts';
import { readFile } from '../file-tree.ts';

/**
 * `ssh-keygen -l [-E sha256] -f FILE.pub`, as OpenSSH prints it: `BITS SHA256:<base64 of the key blob's
 * SHA-256, unpadded> COMMENT (TYPE)`. The fingerprint is computed from the file's key, like the real tool,
 * so a simulated host behind a real sshd reports the key that sshd presents when given its .pub file.
 */
const TYPES: Record<string, { label: string; bits?: number }> = {
  'ssh-ed25519': { label: 'ED25519', bits: 256 },
  'ecdsa-sha2-nistp256': { label: 'ECDSA', bits: 256 },
  'ecdsa-sha2-nistp384': { label: 'ECDSA', bits: 384 },
  'ecdsa-sha2-nistp521': { label: 'ECDSA', bits: 521 },
  'ssh-rsa': { label: 'RSA' },
};

/** RSA modulus size: the blob is string "ssh-rsa", mpint e, mpint n. */
function rsaBits(blob: Buffer): number {
  let at = 0;
  const next = () => {
    const len = blob.readUInt32BE(at);
    const v = blob.subarray(at + 4, at + 4 + len);
    at += 4 + len;
    return v;
  };
  next();
  next();
  const n = next();
  let i = 0;
  while (i < n.length && n[i] === 0) i++;
  return n.length - i === 0 ? 0 : (n.length - i - 1) * 8 + (32 - Math.clz32(n[i]));
}

registerCommand('ssh-keygen', (ctx) => {
  let o;
  try {
    o = getopt(ctx.args, 'lE:f:');
  } catch (e) {
    return fail(`ssh-keygen: ${(e as Error).message}`, 255);
  }
  const file = o.values.get('f');
  if (!o.flags.has('l') || !file) return fail('usage: ssh-keygen -l [-E fingerprint_hash] -f input_keyfile', 1);
  const hash = o.values.get('E') ?? 'sha256';
  if (hash !== 'sha256') return fail(`Invalid hash algorithm "${hash}"`, 255);
  const text = readFile(ctx.state, file);
  if (text === null) return fail(`${file}: No such file or directory`, 255);
  const [type, b64, ...comment] = text.trim().split(/\s+/);
  const known = TYPES[type ?? ''];
  if (!known || !b64) return fail(`${file} is not a public key file.`, 255);
  const blob = Buffer.from(b64, 'base64');
  const fp = createHash('sha256').update(blob).digest('base64').replace(/=+$/, '');
  const bits = known.bits ?? rsaBits(blob);
  return { code: 0, stderr: '', stdout: `${bits} SHA256:${fp} ${comment.join(' ') || 'no comment'} (${known.label})\n` };
});
