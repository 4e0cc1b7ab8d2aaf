/**
 * A private PostgreSQL server for one test: Debian's server binaries (package `postgresql`, provisioned by
 * `npm test`) run on a fresh data directory, a free port and the settings the test names (e.g. a low
 * `max_connections`), so the test never touches the machine's own cluster. PostgreSQL refuses to run as root:
 * as root the directory is handed to the `postgres` user and initdb and the server run as it.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { freePort, waitFor } from '#scripts/stack/ports';

export interface PrivatePostgres {
  /** superuser URL (trust authentication: any password is accepted) */
  url: string;
  /** what the server has logged so far (its stderr): e.g. each refused connection's FATAL line */
  log(): string;
  stop(): Promise<void>;
}

/** Debian installs each major version's server under /usr/lib/postgresql/<major>/bin: the newest one. */
export function serverBinDir(): string {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'postgres'))) : [];
  if (!majors.length) throw new Error('no PostgreSQL server under /usr/lib/postgresql/*/bin (apt-get install postgresql)');
  return join(root, majors.sort((a, b) => Number(b) - Number(a))[0], 'bin');
}

const idOf = (flag: '-u' | '-g') => Number(spawnSync('id', [flag, 'postgres'], { encoding: 'utf8' }).stdout.trim());

export async function startPrivatePostgres(settings: Record<string, string>): Promise<PrivatePostgres> {
  const bin = serverBinDir();
  const dir = mkdtempSync(join(tmpdir(), 'hm-pg-'));
  const data = join(dir, 'data');
  // as root: the `postgres` user Debian's package creates owns the directory and runs the programs
  const user: { uid?: number; gid?: number } = process.getuid?.() === 0 ? { uid: idOf('-u'), gid: idOf('-g') } : {};
  if (user.uid !== undefined && user.gid !== undefined) {
    chownSync(dir, user.uid, user.gid);
    chmodSync(dir, 0o700);
  }
  const init = spawnSync(join(bin, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync'], { encoding: 'utf8', cwd: dir, ...user });
  if (init.status !== 0) throw new Error(`initdb failed: ${init.stderr}`);
  const port = await freePort();
  const flags = Object.entries({ listen_addresses: '127.0.0.1', port: String(port), unix_socket_directories: dir, fsync: 'off', ...settings }).flatMap(
    ([k, v]) => ['-c', `${k}=${v}`],
  );
  const server: ChildProcess = spawn(join(bin, 'postgres'), ['-D', data, ...flags], { stdio: ['ignore', 'ignore', 'pipe'], cwd: dir, ...user });
  let log = '';
  server.stderr!.on('data', (d) => (log += d));
  let exited = false;
  server.once('exit', () => (exited = true));
  const url = `postgres://postgres:postgres@127.0.0.1:${port}/postgres`;
  await waitFor(
    'private PostgreSQL',
    async () => {
      if (exited) throw new Error(`postgres exited: ${log}`);
      const c = new pg.Client({ connectionString: url });
      try {
        await c.connect();
        return true;
      } catch {
        return false;
      } finally {
        await c.end().catch(() => undefined);
      }
    },
    60_000,
  );
  return {
    url,
    log: () => log,
    stop: async () => {
      if (!exited) {
        server.kill('SIGINT');
        await new Promise((r) => server.once('exit', r));
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
