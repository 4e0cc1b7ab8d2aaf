import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { PassThrough, type Readable, type Writable } from 'node:stream';
import type { NodeSSH } from 'node-ssh';
import type { Executor, RunOptions, RunResult, StartedCommand } from './executor.ts';
import { TIMEOUT_CODE } from './local.ts';
import { shCommandLine } from './quote.ts';

/**
 * Runs commands on a host over SSH (node-ssh's connection, key authentication). The argv is quoted word by
 * word and run through `/bin/sh -c` whatever the login shell (./quote.ts), so arguments arrive exactly as given
 * on a host whose root shell is csh too. One connection is kept and
 * reopened when it drops; channels are limited to stay under sshd's MaxSessions (10 by default).
 *
 * Results follow the local executor: exit code; 124 after a timeout (the channel is closed); 128+N when the
 * remote command was killed by a signal.
 */
export interface SshExecutorOptions {
  host: string;
  port?: number;
  username?: string;
  /** private key text, or a file with it */
  privateKey?: string;
  privateKeyPath?: string;
  passphrase?: string;
  /**
   * the server's host key fingerprints as `ssh-keygen -l` prints them (`SHA256:…`): the connection is refused
   * unless the server presents one of them. Required unless `insecureAcceptAnyHostKey` says otherwise: an
   * unpinned connection lets whoever answers at the address run the host.
   */
  hostKeySha256?: string | readonly string[];
  /** accept whatever host key the server presents (an explicit opt-out, never a default) */
  insecureAcceptAnyHostKey?: boolean;
  /** prepended to every argv, e.g. ['sudo', '-n'] or a simulator CLI in tests */
  prefix?: string[];
  defaultTimeoutMs?: number;
  readyTimeoutMs?: number;
  /** concurrent channels on the one connection (default 8) */
  maxChannels?: number;
}

/** The part of ssh2's ClientChannel this executor uses (ssh2 ships no types here). */
interface Channel extends NodeJS.ReadWriteStream {
  stderr: Readable;
  on(event: 'exit', fn: (code: number | null, signal?: string) => void): this;
  on(event: string, fn: (...args: unknown[]) => void): this;
  close(): void;
  signal?(name: string): void;
}
interface Ssh2Client {
  exec(command: string, cb: (err: Error | undefined, channel: Channel) => void): void;
  on(event: string, fn: (...args: unknown[]) => void): void;
  setNoDelay(noDelay: boolean): void;
}

/** `SHA256:abc=` → `abc` (how ssh-keygen prints it → the bare base64 the verifier computes) */
const bareFingerprint = (k: string) =>
  k
    .trim()
    .replace(/^SHA256:/, '')
    .replace(/=+$/, '');

const SIGNALS: Record<string, number> = { HUP: 1, INT: 2, QUIT: 3, ABRT: 6, KILL: 9, SEGV: 11, PIPE: 13, ALRM: 14, TERM: 15 };

export class SshExecutor implements Executor {
  readonly kind = 'ssh' as const;
  private ssh: NodeSSH | null = null;
  private connecting: Promise<Ssh2Client> | null = null;
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  private readonly pinned: string[] | null;

  constructor(private readonly opts: SshExecutorOptions) {
    const keys = typeof opts.hostKeySha256 === 'string' ? [opts.hostKeySha256] : [...(opts.hostKeySha256 ?? [])];
    this.pinned = keys.length ? keys.map(bareFingerprint) : null;
    if (!this.pinned && !opts.insecureAcceptAnyHostKey) {
      throw new Error(`ssh executor for ${opts.host}: no host key fingerprint to pin (give one, or accept any host key explicitly)`);
    }
  }

  /** Connects now (the first command would otherwise); rejects on authentication or host key failures. */
  async connect(): Promise<void> {
    await this.client();
  }

  private client(): Promise<Ssh2Client> {
    if (this.connecting) return this.connecting;
    const o = this.opts;
    const pinned = this.pinned;
    let presented = '';
    let ssh!: NodeSSH;
    // node-ssh (ssh2, ≈ 300 KB of code) loads with the first connection: an agent that never reaches a host or a
    // peer over SSH never evaluates it, which keeps an idle agent's memory down
    const attempt = import('node-ssh')
      .then(({ NodeSSH }) => {
        ssh = new NodeSSH();
        return ssh.connect({
          host: o.host,
          port: o.port ?? 22,
          username: o.username ?? 'root',
          privateKey: o.privateKey ?? (o.privateKeyPath ? readFileSync(o.privateKeyPath, 'utf8') : undefined),
          passphrase: o.passphrase,
          readyTimeout: o.readyTimeoutMs ?? 10_000,
          keepaliveInterval: 15_000,
          hostVerifier: pinned
            ? (key: Buffer) => {
                presented = createHash('sha256').update(key).digest('base64').replace(/=+$/, '');
                return pinned.includes(presented);
              }
            : undefined,
        });
      })
      .catch((err: Error) => {
        if (pinned && presented && !pinned.includes(presented)) {
          throw new Error(
            `SSH host key mismatch for ${o.host}:${o.port ?? 22}: the server presented SHA256:${presented}, expected ${pinned.map((k) => `SHA256:${k}`).join(' or ')} (${err.message})`,
          );
        }
        throw err;
      })
      .then(() => {
        const conn = ssh.connection as unknown as Ssh2Client;
        // TCP_NODELAY, as OpenSSH's own client and sshd set on every session (crypto/openssh/packet.c,
        // ssh_packet_set_interactive): with Nagle on, each command's small packets waited out the peer's delayed
        // ACK — measured over loopback, the host-check kit's 335 commands took 97 s instead of 9 s
        conn.setNoDelay(true);
        // a dropped connection is reopened by the next command
        const reset = () => {
          if (this.ssh === ssh) {
            this.ssh = null;
            this.connecting = null;
          }
        };
        conn.on('close', reset);
        conn.on('end', reset);
        conn.on('error', reset);
        this.ssh = ssh;
        return conn;
      });
    this.connecting = attempt;
    attempt.catch(() => {
      if (this.connecting === attempt) this.connecting = null;
    });
    return attempt;
  }

  private async slot(): Promise<() => void> {
    const max = this.opts.maxChannels ?? 8;
    while (this.active >= max) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    return () => {
      this.active--;
      this.waiting.shift()?.();
    };
  }

  /** The command line the remote (login) shell gets. */
  commandLine(argv: string[]): string {
    if (!argv.length) throw new Error('empty argv');
    return shCommandLine([...(this.opts.prefix ?? []), ...argv]);
  }

  start(argv: string[], opts: { timeoutMs?: number } = {}): StartedCommand {
    const command = this.commandLine(argv);
    const stdin = new PassThrough();
    const stdout = new PassThrough();
    let channel: Channel | null = null;
    let killed = false;
    let timedOut = false;
    const timeoutMs = opts.timeoutMs ?? this.opts.defaultTimeoutMs ?? 600_000;
    const stop = () => {
      killed = true;
      channel?.signal?.('KILL');
      channel?.close();
    };
    let onTimeout: () => void = () => undefined;
    const timedOutP = new Promise<void>((r) => (onTimeout = r));
    const done = (async () => {
      const release = await this.slot();
      const timer = setTimeout(() => {
        timedOut = true;
        stop();
        onTimeout();
      }, timeoutMs);
      let ch: Channel | null = null;
      try {
        const conn = await this.client();
        let exit: { code: number | null; signal?: string } = { code: null };
        let onExit: () => void = () => undefined;
        const exited = new Promise<void>((resolve) => (onExit = resolve));
        ch = await new Promise<Channel>((resolve, reject) =>
          conn.exec(command, (err, c) => {
            if (err) return reject(err);
            // listened to here, not after the await: a quick command's exit status can arrive in the same read as
            // the exec's reply, and ssh2 emits 'exit' while it parses that read, before a promise continuation runs
            c.on('exit', (code: number | null, signal?: string) => {
              exit = { code, signal };
              onExit();
            });
            resolve(c);
          }),
        );
        channel = ch;
        if (killed) stop();
        let stderr = '';
        ch.stderr.setEncoding('utf8');
        ch.stderr.on('data', (c: string) => {
          if (stderr.length < 1 << 20) stderr += c;
        });
        const outEnded = new Promise<void>((resolve) => ch!.on('end', () => resolve()));
        const errEnded = new Promise<void>((resolve) => ch!.stderr.on('end', () => resolve()));
        const closed = new Promise<void>((resolve) => ch!.on('close', () => resolve()));
        ch.pipe(stdout);
        stdin.pipe(ch as unknown as Writable);
        // finished when the channel closes, or when the command has exited and its output is read (a
        // sender still writing into stdin must not hold it open), or at the timeout
        await Promise.race([closed, Promise.all([exited, outEnded, errEnded]), timedOutP]);
        stdout.end();
        if (timedOut) return { code: TIMEOUT_CODE, stderr: `${stderr}${argv[0]}: timed out after ${timeoutMs} ms\n` };
        if (exit.code !== null && exit.code !== undefined) return { code: exit.code, stderr };
        if (exit.signal) return { code: 128 + (SIGNALS[exit.signal.replace(/^SIG/, '')] ?? 0), stderr };
        return { code: killed ? 137 : 255, stderr: stderr || `${argv[0]}: the ssh channel closed without an exit status\n` };
      } finally {
        clearTimeout(timer);
        // whatever still writes into stdin is drained, and the channel let go
        stdin.unpipe();
        stdin.resume();
        ch?.close();
        release();
      }
    })();
    // a failure to connect or open the channel ends the output; the error itself comes through `done`
    done.catch(() => stdout.end());
    return { stdin, stdout, done, kill: stop };
  }

  async run(argv: string[], opts: RunOptions = {}): Promise<RunResult> {
    const cmd = this.start(argv, { timeoutMs: opts.timeoutMs });
    // a cancelled task: the remote command gets KILL and its channel closes
    const stop = () => cmd.kill();
    const off = () => opts.signal?.removeEventListener('abort', stop);
    opts.signal?.addEventListener('abort', stop, { once: true });
    cmd.done.then(off, off);
    const chunks: Buffer[] = [];
    cmd.stdout.on('data', (c: Buffer) => chunks.push(c));
    cmd.stdin.end(opts.stdin ?? '');
    const { code, stderr } = await cmd.done;
    return { code, stdout: Buffer.concat(chunks).toString('utf8'), stderr };
  }

  async close(): Promise<void> {
    const ssh = this.ssh;
    this.ssh = null;
    this.connecting = null;
    ssh?.dispose();
  }
}
