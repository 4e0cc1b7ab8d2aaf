import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

interface Started {
  stateFile: string;
  pid: number;
  apiUrl: string;
  databaseUrl: string;
  adminToken: string;
  storeKind: string;
  logDir: string;
}

/** Starts one scripts/stack/test-stack.ts (store + migrations + serverless-offline) as a real process. */
async function startOne(index: number): Promise<Started> {
  const stateFile = join(process.cwd(), '.local', `test-stack-${process.pid}-${index}.json`);
  // npm test's passes may run at once (test/setup/run-tiers.ts): each pass's stacks log under its own folder
  const logDir = join('.local', 'test-logs', ...(process.env.HM_TEST_PASS ? [process.env.HM_TEST_PASS] : []), `w${index + 1}`);
  rmSync(stateFile, { force: true });
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/stack/test-stack.ts', stateFile], {
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
    env: { ...process.env, HM_TEST_LOG_DIR: logDir },
  });
  let exited: number | null = null;
  child.once('exit', (c) => (exited = c ?? -1));
  const until = Date.now() + 180_000;
  while (!existsSync(stateFile)) {
    if (exited !== null) throw new Error(`test stack exited with ${exited}; see ${logDir}/`);
    if (Date.now() > until) throw new Error('test stack did not start within 180 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  child.unref();
  const state = JSON.parse(readFileSync(stateFile, 'utf8'));
  return {
    stateFile,
    pid: child.pid!,
    apiUrl: state.apiUrl,
    databaseUrl: state.databaseUrl,
    adminToken: state.adminToken,
    storeKind: state.storeKind,
    logDir: state.logDir,
  };
}

/**
 * One stack per jest worker (own ports, own store), so files run in parallel and a test that counts or dismisses
 * global state still sees only its own worker's files, one at a time; test/setup/select-stack.ts hands each
 * worker its stack by JEST_WORKER_ID. As many stacks as workers can run at once: jest's --maxWorkers, or fewer
 * when fewer test files were named.
 */
export default async function globalSetup(globalConfig: { maxWorkers: number; nonFlagArgs?: string[] }) {
  mkdirSync('.local', { recursive: true });
  const named = globalConfig.nonFlagArgs?.length ?? 0;
  const count = Math.max(1, named ? Math.min(globalConfig.maxWorkers, named) : globalConfig.maxWorkers);
  const results = await Promise.allSettled(Array.from({ length: count }, (_, i) => startOne(i)));
  const stacks = results.flatMap((r) => (r.status === 'fulfilled' ? [r.value] : []));
  process.env.HM_TEST_STACKS = JSON.stringify(stacks);
  const failed = results.find((r) => r.status === 'rejected');
  if (failed) throw (failed as PromiseRejectedResult).reason;
}
