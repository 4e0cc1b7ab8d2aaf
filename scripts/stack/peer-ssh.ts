import { timingSafeEqual } from 'node:crypto';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { userInfo } from 'node:os';
import ssh2, { type Connection, type Server, type ServerChannel } from 'ssh2';
import { readFile, writeFile } from '#simulator/file-tree';
import { LOGIN_PATH } from '#simulator/profiles';
import { HostSimulator } from '#simulator/simulator';
import { shSplit } from './sh-words.ts';
import { ed25519KeyPair, sshKeyParses } from './ssh-keypair.ts';

/**
 * How simulated hosts reach each other in the local stack. A real host's jobs stream to another node over
 * SSH at that node's address (E20: `zfs send | ssh <target> zfs recv`); here every simulated host gets an SSH
 * server at its node's address — its own loopback address, 127.0.0.x — that runs the commands it is sent on
 * that host's simulator. The agents use their unchanged SSH executor and the real protocol (ssh2, which
 * node-ssh is built on, so nothing beyond `npm ci` is needed); only the far end is simulated, as everywhere.
 * Each simulated host has its own ed25519 host key, kept in its state like sshd's (/etc/ssh), so its agent
 * reports that key's fingerprint at registration and peers pin it; one client key for all agents is
 * generated per start in `dir`.
 */
export interface PeerHost {
  nodeId: string;
  /** the node's address: where the agents' peer connections go */
  address: string;
  statePath: string;
}

export interface PeerSsh {
  port: number;
  user: string;
  /** the agents' private key (--peer-ssh-key) */
  keyFile: string;
  /** the hosts that are served, by node id */
  served: Map<string, string>;
  stop(): Promise<void>;
}

/** Whether `address` can be served here: an IPv4 loopback address (Linux routes all of 127/8 to lo). */
export const isLoopback = (address: string): boolean => /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(address);

const sameKey = (a: Buffer, b: Buffer) => a.length === b.length && timingSafeEqual(a, b);

/**
 * The argv a command line comes to: the login shell splits it, and `/bin/sh -c '<line>'` (how the agent's SSH
 * executor sends every command) has sh split the inner line the same way before it execs the one simple command.
 */
function loginShellWords(command: string): string[] {
  const words = shSplit(command);
  return words.length === 3 && words[0] === '/bin/sh' && words[1] === '-c' ? shSplit(words[2]) : words;
}

function serveExec(sim: HostSimulator, command: string, channel: ServerChannel): void {
  const chunks: Buffer[] = [];
  channel.on('data', (c: Buffer) => chunks.push(c));
  // a command reads its stdin to the end (the executor always ends it), then answers
  channel.once('end', async () => {
    let res: { code: number; stdout: string; stderr: string };
    try {
      res = await sim.run(loginShellWords(command), Buffer.concat(chunks));
    } catch (err) {
      res = { code: 2, stdout: '', stderr: `sh: ${(err as Error).message}\n` };
    }
    channel.write(res.stdout);
    channel.stderr.write(res.stderr);
    channel.exit(res.code);
    channel.end();
  });
}

const HOST_KEY = '/etc/ssh/ssh_host_ed25519_key';

/**
 * The host's sshd key (private, OpenSSH format), made and stored in its state on first use like sshd-keygen
 * does — and made again if the stored one cannot be read (an unreadable key from before ed25519KeyPair).
 */
function hostKeyOf(sim: HostSimulator, nodeId: string): Promise<string> {
  return sim.state((state) => {
    const existing = readFile(state, HOST_KEY);
    if (existing && sshKeyParses(existing)) return existing;
    const key = ed25519KeyPair(`root@${nodeId}`);
    writeFile(state, HOST_KEY, key.private, '600', true);
    writeFile(state, `${HOST_KEY}.pub`, `${key.public}\n`, '644', true);
    return key.private;
  });
}

/** Starts one SSH server per host on `host.address:port`; a host whose address cannot be bound is left out with a warning. */
export async function startPeerSsh(o: { hosts: PeerHost[]; port: number; dir: string; warn: (line: string) => void }): Promise<PeerSsh> {
  mkdirSync(o.dir, { recursive: true });
  const client = ed25519KeyPair();
  const keyFile = resolve(join(o.dir, 'id_ed25519'));
  writeFileSync(keyFile, client.private, { mode: 0o600 });
  chmodSync(keyFile, 0o600);
  const allowed = ssh2.utils.parseKey(client.public);
  if (allowed instanceof Error) throw allowed;
  const user = userInfo().username;

  const servers: Server[] = [];
  const conns = new Set<Connection>();
  const served = new Map<string, string>();
  for (const h of o.hosts) {
    // an SSH session's commands: login.conf's PATH
    const sim = new HostSimulator({ statePath: h.statePath, path: LOGIN_PATH });
    const server = new ssh2.Server({ hostKeys: [await hostKeyOf(sim, h.nodeId)] }, (conn: Connection) => {
      conns.add(conn);
      // as sshd does for every session (crypto/openssh/packet.c, ssh_packet_set_interactive → set_nodelay)
      (conn as Connection & { setNoDelay(on: boolean): void }).setNoDelay(true); // ssh2 has it; its types do not
      conn.on('close', () => conns.delete(conn));
      conn.on('error', () => undefined); // a client that goes away is not our failure
      conn.on('authentication', (ctx) => {
        const ok =
          ctx.method === 'publickey' &&
          ctx.key !== undefined &&
          ctx.key.algo === allowed.type &&
          sameKey(ctx.key.data, allowed.getPublicSSH()) &&
          (!ctx.signature || allowed.verify(ctx.blob!, ctx.signature, ctx.hashAlgo) === true);
        if (ok) ctx.accept();
        else ctx.reject(['publickey']);
      });
      conn.on('session', (acceptSession) => {
        const session = acceptSession();
        session.on('exec', (accept, _reject, info) => serveExec(sim, info.command, accept()));
      });
    });
    const bound = await new Promise<boolean>((res) => {
      server.once('error', (err: Error) => {
        o.warn(`node ${h.nodeId}: no peer SSH at ${h.address}:${o.port} (${err.message}); E20 migrations to it will fail to connect`);
        res(false);
      });
      server.listen(o.port, h.address, () => res(true));
    });
    if (!bound) continue;
    servers.push(server);
    served.set(h.nodeId, h.address);
  }
  return {
    port: o.port,
    user,
    keyFile,
    served,
    stop: async () => {
      // agents keep a peer connection open between commands; close() waits for them to end
      for (const c of conns) c.end();
      await Promise.all(servers.map((s) => new Promise<void>((r) => s.close(() => r()))));
    },
  };
}
