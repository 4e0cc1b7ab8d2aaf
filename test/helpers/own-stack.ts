import { spawn } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Where a test's own stack lives: the same ports and data dir at every start. */
export interface OwnStackConfig {
  dataDir: string;
  logDir: string;
  ports: { http: number; lambda: number; pglite: number; queue: number };
}

export interface OwnStack {
  /** absent when only the store runs */
  apiUrl?: string;
  databaseUrl: string;
  /** SIGTERM: the process stops every part it started, then exits */
  stop(): Promise<void>;
}

/**
 * Starts test/helpers/own-stack-main.ts (startStack, or only the store with `storeOnly`) and waits for its
 * coordinates.
 */
export async function startOwnStack(cfg: OwnStackConfig, storeOnly = false): Promise<OwnStack> {
  const out = join(cfg.logDir, `..`, `own-stack-${Date.now()}.json`);
  const cfgFile = `${out}.config`;
  writeFileSync(cfgFile, JSON.stringify({ ...cfg, out, storeOnly }));
  const child = spawn(process.execPath, ['--import', 'tsx', 'test/helpers/own-stack-main.ts', cfgFile], { stdio: ['ignore', 'inherit', 'inherit'] });
  let exited: number | null = null;
  const gone = new Promise<void>((resolve) =>
    child.once('exit', (c) => {
      exited = c ?? -1;
      resolve();
    }),
  );
  const until = Date.now() + 180_000;
  while (!existsSync(out)) {
    if (exited !== null) throw new Error(`own stack exited with ${exited}; see ${cfg.logDir}/`);
    if (Date.now() > until) {
      child.kill('SIGKILL');
      throw new Error('own stack did not start within 180 s');
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const coords = JSON.parse(readFileSync(out, 'utf8')) as { apiUrl?: string; databaseUrl: string };
  rmSync(out, { force: true });
  rmSync(cfgFile, { force: true });
  return {
    ...coords,
    stop: async () => {
      if (exited !== null) return;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
      await gone;
      clearTimeout(timer);
    },
  };
}
