import { rmSync } from 'node:fs';

export default async function globalTeardown() {
  const pid = Number(process.env.HM_TEST_STACK_PID);
  if (pid) {
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
  }
  if (process.env.HM_TEST_STACK) rmSync(process.env.HM_TEST_STACK, { force: true });
}
