import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

/** Starts scripts/stack/test-stack.ts (store + migrations + serverless-offline) as a real process. */
export default async function globalSetup() {
  mkdirSync('.local', { recursive: true });
  const stateFile = join(process.cwd(), '.local', `test-stack-${process.pid}.json`);
  rmSync(stateFile, { force: true });
  const child = spawn(process.execPath, ['--import', 'tsx', 'scripts/stack/test-stack.ts', stateFile], {
    stdio: ['ignore', 'inherit', 'inherit'],
    detached: true,
    env: process.env,
  });
  let exited: number | null = null;
  child.once('exit', (c) => (exited = c ?? -1));
  const until = Date.now() + 180_000;
  while (!existsSync(stateFile)) {
    if (exited !== null) throw new Error(`test stack exited with ${exited}; see .local/test-logs/`);
    if (Date.now() > until) throw new Error('test stack did not start within 180 s');
    await new Promise((r) => setTimeout(r, 100));
  }
  const state = JSON.parse(readFileSync(stateFile, 'utf8'));
  process.env.HM_TEST_STACK = stateFile;
  process.env.HM_TEST_API = state.apiUrl;
  process.env.HM_TEST_DATABASE_URL = state.databaseUrl;
  process.env.HM_TEST_ADMIN_TOKEN = state.adminToken;
  process.env.HM_TEST_STORE = state.storeKind;
  process.env.HM_TEST_STACK_PID = String(child.pid);
  child.unref();
}
