import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { tmpdir, userInfo } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '#scripts/stack/ports';

/**
 * A real OpenSSH server for tests: listens on 127.0.0.1 on a free port, with a host key and a user key
 * generated into a temp dir, key authentication only. Tests run as root here (sshd then needs its
 * privilege separation directory, which Debian's package creates only at boot).
 */
export interface Sshd {
  port: number;
  username: string;
  /** the user's private key (OpenSSH format) */
  privateKey: string;
  /** `SHA256:…` of the host key, as ssh-keygen -l prints it */
  hostKeySha256: string;
  dir: string;
  stop(): Promise<void>;
}

const SSHD = '/usr/sbin/sshd';

/** Resolves once the server sends its SSH banner. */
async function banner(port: number, until: number): Promise<void> {
  while (Date.now() < until) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect(port, '127.0.0.1');
      s.once('data', (d) => {
        s.destroy();
        resolve(d.toString().startsWith('SSH-2.0'));
      });
      s.once('error', () => resolve(false));
    });
    if (ok) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`sshd did not answer on port ${port}`);
}

export async function startSshd(): Promise<Sshd> {
  if (!existsSync(SSHD)) throw new Error(`${SSHD} is missing: run "npm run provision" (npm test does it first), or install OpenSSH's server yourself`);
  const dir = mkdtempSync(join(tmpdir(), 'hm-sshd-'));
  const keygen = (file: string) => execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'hm-test', '-f', file]);
  keygen(join(dir, 'host_key'));
  keygen(join(dir, 'user_key'));
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(join(dir, 'user_key.pub')));
  const hostKeySha256 = execFileSync('ssh-keygen', ['-l', '-E', 'sha256', '-f', join(dir, 'host_key.pub')])
    .toString()
    .split(' ')[1];
  const port = await freePort();
  const username = userInfo().username;
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 });
  const config = [
    `Port ${port}`,
    'ListenAddress 127.0.0.1',
    `HostKey ${join(dir, 'host_key')}`,
    `PidFile ${join(dir, 'sshd.pid')}`,
    `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    'PubkeyAuthentication yes',
    'PasswordAuthentication no',
    'KbdInteractiveAuthentication no',
    'UsePAM no',
    'StrictModes no',
    'PermitRootLogin prohibit-password',
    'MaxSessions 20',
    'LogLevel ERROR',
    // the peer stands for a FreeBSD host, whose root shell (sh) reads no startup file for `sh -c`; bash reads
    // ~/.bashrc for a command sshd runs only while SHLVL < 2 (bash shell.c run_startup_files, SSH_SOURCE_BASHRC),
    // so this machine's own rc (a pyenv rehash once wrote to a command's stderr) stays out of the commands
    'SetEnv SHLVL=1',
  ].join('\n');
  writeFileSync(join(dir, 'sshd_config'), `${config}\n`);
  const child: ChildProcess = spawn(SSHD, ['-D', '-e', '-f', join(dir, 'sshd_config')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let log = '';
  child.stderr!.on('data', (c) => (log += c));
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  try {
    await Promise.race([banner(port, Date.now() + 10_000), exited.then(() => Promise.reject(new Error(`sshd exited: ${log}`)))]);
  } catch (e) {
    child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
    throw e;
  }
  return {
    port,
    username,
    privateKey: readFileSync(join(dir, 'user_key'), 'utf8'),
    hostKeySha256,
    dir,
    stop: async () => {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The simulator CLI on a simulated host's state file: what the "host" behind sshd runs each peer command through. */
export const simulatorPrefix = (statePath: string): string[] => [
  'env',
  '-C',
  resolve(__dirname, '../..'),
  `HM_SIM_STATE=${statePath}`,
  process.execPath,
  '--import',
  'tsx',
  'simulator/cli.ts',
];

/** Agent options that make the simulated host of `statePath` the agent's SSH peer, reached through this sshd. */
export const peerViaSshd = (sshd: Sshd, statePath: string): string[] => [
  '--peer-ssh-port',
  String(sshd.port),
  '--peer-ssh-user',
  sshd.username,
  '--peer-ssh-key',
  join(sshd.dir, 'user_key'),
  '--peer-ssh-prefix',
  simulatorPrefix(statePath).join(' '),
];
