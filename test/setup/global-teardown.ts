import { rmSync } from 'node:fs';

async function stopOne(pid: number, stateFile: string) {
  try {
    process.kill(pid, 'SIGTERM');
  } catch {
    /* already gone */
  }
  const until = Date.now() + 15_000;
  while (Date.now() < until) {
    try {
      process.kill(pid, 0);
    } catch {
      break;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  try {
    process.kill(-pid, 'SIGKILL');
  } catch {
    /* gone */
  }
  rmSync(stateFile, { force: true });
}

/** Stops every stack test/setup/global-setup.ts started. */
export default async function globalTeardown() {
  const stacks = JSON.parse(process.env.HM_TEST_STACKS || '[]') as Array<{ pid: number; stateFile: string }>;
  await Promise.all(stacks.map((s) => stopOne(s.pid, s.stateFile)));
}
