import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { processAlive } from './store-lock.ts';

/**
 * What a running `npm start` leaves in its local dir (`stack.json`), so the CLIs beside it (npm run token, seed,
 * migrate) reach it — its API, its store's address — on whatever ports it was given, instead of guessing the
 * default ports and opening its store's files a second time. No secret: the admin token is kept apart (0600).
 */
export interface RunningStack {
  pid: number;
  apiUrl: string;
  /** the store's address (the embedded store's wire-protocol port, or DATABASE_URL's server) */
  storeUrl: string;
  /** the file holding the admin token npm start printed, or null (HM_ADMIN_TOKEN was given) */
  adminTokenFile: string | null;
  startedAt: string;
}

export const stackFile = (localDir: string) => join(localDir, 'stack.json');

export function writeRunningStack(localDir: string, s: Omit<RunningStack, 'pid' | 'startedAt'>): () => void {
  const path = stackFile(localDir);
  writeFileSync(path, `${JSON.stringify({ pid: process.pid, ...s, startedAt: new Date().toISOString() }, null, 2)}\n`, { mode: 0o600 });
  return () => {
    if (readRunningStack(localDir)?.pid === process.pid) rmSync(path, { force: true });
  };
}

/** The stack running from this local dir, or null (none recorded, or its process is gone). */
export function readRunningStack(localDir: string): RunningStack | null {
  const path = stackFile(localDir);
  if (!existsSync(path)) return null;
  try {
    const s = JSON.parse(readFileSync(path, 'utf8')) as RunningStack;
    return typeof s.apiUrl === 'string' && processAlive(s.pid) ? s : null;
  } catch {
    return null;
  }
}
