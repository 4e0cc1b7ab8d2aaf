import { closeSync, existsSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import type { SimHost } from '#shared/seed/host/schema';

/**
 * The simulated host's JSON state file. Every access is a transaction: take the in-process queue for the
 * path, then a lock file (the simulator CLI behind sshd and an in-process agent may share one host), read,
 * run, and write back atomically (temp file + rename) only when the state changed.
 */

const queues = new Map<string, Promise<unknown>>();
const LOCK_STALE_MS = 10_000;
const LOCK_WAIT_MS = 15_000;

async function lock(path: string): Promise<() => void> {
  const lockPath = `${path}.lock`;
  const until = Date.now() + LOCK_WAIT_MS;
  for (let delay = 2; ; delay = Math.min(delay * 2, 50)) {
    try {
      const fd = openSync(lockPath, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return () => rmSync(lockPath, { force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // a holder that died leaves its lock behind; a lock this old is not held by anyone running
      try {
        if (Date.now() - statSync(lockPath).mtimeMs > LOCK_STALE_MS) rmSync(lockPath, { force: true });
      } catch {
        /* removed meanwhile */
      }
      if (Date.now() > until) throw new Error(`simulator state ${path} is locked (${lockPath})`);
      await new Promise((r) => setTimeout(r, delay));
    }
  }
}

export function writeAtomic(path: string, text: string): void {
  const tmp = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, path);
}

export class StateFile {
  /**
   * @param initial the state to start from when the file does not exist yet (already normalised)
   */
  constructor(
    readonly path: string,
    private readonly initial?: () => SimHost,
  ) {}

  /** Runs `fn` on the state, serialised with every other transaction on this file; persists changes. */
  transact<T>(fn: (state: SimHost) => T | Promise<T>): Promise<T> {
    const prev = queues.get(this.path) ?? Promise.resolve();
    const run = prev.catch(() => undefined).then(() => this.locked(fn));
    queues.set(
      this.path,
      run.catch(() => undefined),
    );
    return run;
  }

  private async locked<T>(fn: (state: SimHost) => T | Promise<T>): Promise<T> {
    const release = await lock(this.path);
    try {
      let before: string;
      if (existsSync(this.path)) before = readFileSync(this.path, 'utf8');
      else if (this.initial) {
        before = '';
      } else throw new Error(`simulator state ${this.path} does not exist and no seed host was given`);
      const state: SimHost = before ? JSON.parse(before) : this.initial!();
      const result = await fn(state);
      const after = JSON.stringify(state, null, 2) + '\n';
      if (after !== before) writeAtomic(this.path, after);
      return result;
    } finally {
      release();
    }
  }
}
