import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { processAlive } from '#cli/local-stack';

/**
 * PGlite is one process's database: a second process opening the same data directory (npm start on one port,
 * `npm run token` beside it) writes over the first one's pages, and the store is corrupt from then on (the next
 * open aborts). So whoever opens a data directory holds `<dir>.lock` (its pid) while it has it open; a second
 * opener is refused, naming the holder. A lock whose process is gone (a crash, kill -9) is taken over.
 */
export class StoreLockedError extends Error {
  constructor(
    readonly dataDir: string,
    readonly pid: number,
  ) {
    super(
      `the embedded store in ${dataDir} is open in process ${pid} (npm start, or another command); a second opener would corrupt it. ` +
        'Use the running stack (npm run token finds it) or stop that process first.',
    );
    this.name = 'StoreLockedError';
  }
}

export const lockPath = (dataDir: string) => `${dataDir.replace(/\/+$/, '')}.lock`;

// one liveness rule for every local-dir record (the lock here, stack.json there)
export { processAlive };

/** The pid holding the data directory, or null when no live process does. */
export function storeHolder(dataDir: string): number | null {
  let text: string;
  try {
    text = readFileSync(lockPath(dataDir), 'utf8');
  } catch {
    return null;
  }
  const pid = Number(text.trim());
  return processAlive(pid) && pid !== process.pid ? pid : null;
}

/** Takes the data directory's lock (created exclusively, so two openers never both win); returns its release. */
export function lockStore(dataDir: string): () => void {
  const path = lockPath(dataDir);
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const fd = openSync(path, 'wx', 0o600);
      writeSync(fd, `${process.pid}\n`);
      closeSync(fd);
      return () => {
        // only our own lock: a taken-over one belongs to its new holder
        if (readFileSync(path, 'utf8').trim() === String(process.pid)) rmSync(path, { force: true });
      };
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      const holder = storeHolder(dataDir);
      if (holder !== null) throw new StoreLockedError(dataDir, holder);
      // its holder is gone: remove the stale lock and try again
      rmSync(path, { force: true });
    }
  }
  throw new Error(`could not take ${path}: it keeps reappearing (another process is opening ${dataDir})`);
}
