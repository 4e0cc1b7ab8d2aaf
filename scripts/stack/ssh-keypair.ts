import ssh2 from 'ssh2';

/** Whether ssh2 can read this OpenSSH key (private or public) back. */
export const sshKeyParses = (text: string): boolean => !(ssh2.utils.parseKey(text) instanceof Error);

/**
 * An ed25519 key pair in OpenSSH format that ssh2 itself can read back. ssh2 1.17's generateKeyPairSync strips
 * leading zero bytes of the key material, so about 1 pair in 250 does not parse ("Malformed OpenSSH private
 * key"; mscdex/ssh2#1390, #1513): such a pair is thrown away and another generated.
 */
export function ed25519KeyPair(comment?: string): { private: string; public: string } {
  for (let i = 0; i < 100; i++) {
    const key = ssh2.utils.generateKeyPairSync('ed25519', comment ? { comment } : undefined);
    if (sshKeyParses(key.private) && sshKeyParses(key.public)) return key;
  }
  throw new Error('ssh2 generated 100 unreadable ed25519 keys in a row');
}
