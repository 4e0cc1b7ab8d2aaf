import type { Executor } from '../executors/executor.ts';

/** The host's sshd public keys, in the order OpenSSH prefers them. */
const SSH_HOST_KEY_FILES = ['ed25519', 'ecdsa', 'rsa'].map((t) => `/etc/ssh/ssh_host_${t}_key.pub`);

/** `256 SHA256:<43 base64> comment (ED25519)` → the fingerprint */
const FINGERPRINT = /^\d+ (SHA256:[A-Za-z0-9+/]{43})\s/;

/**
 * The SHA256 fingerprints of the host's SSH host keys (`ssh-keygen -l -E sha256 -f` on each .pub file), what
 * the node reports at registration so that peers connect only to a host presenting one of them. A missing
 * key file is skipped (a host may have only some key types).
 */
export async function sshHostKeyFingerprints(exec: Executor): Promise<string[]> {
  const out: string[] = [];
  for (const file of SSH_HOST_KEY_FILES) {
    const r = await exec.run(['ssh-keygen', '-l', '-E', 'sha256', '-f', file]);
    const m = r.code === 0 ? FINGERPRINT.exec(r.stdout.trim() + ' ') : null;
    if (m) out.push(m[1]);
  }
  return out;
}
