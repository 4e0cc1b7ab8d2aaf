// @tier stack
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import ssh2 from 'ssh2';
import { ed25519KeyPair, sshKeyParses } from '#scripts/stack/ssh-keypair';
import { startPeerSsh } from '#scripts/stack/peer-ssh';
import { ensureSimulatorState } from '#scripts/stack/local-agent';
import { HostSimulator } from '#simulator/simulator';
import { readFile, writeFile } from '#simulator/file-tree';
import { testHost } from '../../helpers/agent.ts';

/**
 * ssh2's own ed25519 generator makes about 1 pair in 250 that it cannot read back (a peer SSH server then
 * fails to start: "Malformed OpenSSH private key"); the stack's keys are always readable.
 */
test('2000 generated pairs: every private and public key parses, and the halves belong together', () => {
  for (let i = 0; i < 2000; i++) {
    const key = ed25519KeyPair('root@test');
    const priv = ssh2.utils.parseKey(key.private);
    const pub = ssh2.utils.parseKey(key.public);
    if (priv instanceof Error || pub instanceof Error) throw new Error(`pair ${i} does not parse`);
    expect(priv.getPublicSSH().equals(pub.getPublicSSH())).toBe(true);
  }
});

test('a simulated host whose stored sshd key is unreadable gets a new one; its peer SSH server starts', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hm-keypair-'));
  try {
    const statePath = join(dir, 'host.json');
    ensureSimulatorState(statePath, testHost());
    const sim = new HostSimulator({ statePath });
    await sim.state((s) =>
      writeFile(s, '/etc/ssh/ssh_host_ed25519_key', '-----BEGIN OPENSSH PRIVATE KEY-----\nAAAA\n-----END OPENSSH PRIVATE KEY-----\n', '600', true),
    );
    const peer = await startPeerSsh({
      hosts: [{ nodeId: 'n1', address: '127.0.0.1', statePath }],
      port: 0,
      dir: join(dir, 'peer'),
      warn: (l) => {
        throw new Error(l);
      },
    });
    await peer.stop();
    expect(peer.served.get('n1')).toBe('127.0.0.1');
    const stored = await new HostSimulator({ statePath }).state((s) => readFile(s, '/etc/ssh/ssh_host_ed25519_key'));
    expect(stored && sshKeyParses(stored)).toBe(true);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
