import { rmSync, writeFileSync } from 'node:fs';
import { readRunningStack, stackFile, type RunningStack } from '#cli/local-stack';

/** The running stack's record (stack.json) is declared with its readers, in cli/local-stack.ts; npm start writes it. */
export { readRunningStack, stackFile, type RunningStack };

export function writeRunningStack(localDir: string, s: Omit<RunningStack, 'pid' | 'startedAt'>): () => void {
  const path = stackFile(localDir);
  writeFileSync(path, `${JSON.stringify({ pid: process.pid, ...s, startedAt: new Date().toISOString() }, null, 2)}\n`, { mode: 0o600 });
  return () => {
    if (readRunningStack(localDir)?.pid === process.pid) rmSync(path, { force: true });
  };
}
