import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

/**
 * What a running `npm start` leaves in its local dir (`stack.json`), so the clients beside it — hostmgr, and the
 * token, seed and migrate scripts — reach it on whatever ports it was given, instead of guessing the default
 * ports (and, for the scripts, opening its store's files a second time). No secret in it: the admin token npm
 * start keeps is a file of its own (0600), named here.
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

/** The local dir npm start uses: HM_LOCAL_DIR, default `.local` (of the working directory). */
export const localDirOf = (env: NodeJS.ProcessEnv) => resolve(env.HM_LOCAL_DIR || '.local');

/** Whether a process with this pid exists (EPERM: it does, another user's). */
export function processAlive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
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

/** The admin token npm start keeps in its local dir, or undefined (none kept, or unreadable). */
export function keptAdminToken(stack: RunningStack): string | undefined {
  if (!stack.adminTokenFile) return undefined;
  try {
    return readFileSync(stack.adminTokenFile, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
