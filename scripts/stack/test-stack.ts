/**
 * The stack the jest suite runs against: fresh store (a PGlite copy, or a scratch database on
 * TEST_DATABASE_URL), random ports, quiet logs. Writes its coordinates to the file named by argv[2] and
 * runs until SIGTERM.
 */
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { startStack } from './stack.ts';
import { freePort } from './ports.ts';

const out = process.argv[2];
const dir = mkdtempSync(join(tmpdir(), 'hm-test-'));
const stack = await startStack({
  dataDir: join(dir, 'pglite'),
  scratchServerUrl: process.env.TEST_DATABASE_URL || undefined,
  httpPort: await freePort(),
  lambdaPort: await freePort(),
  demoSeed: false,
  logDir: resolve('.local/test-logs'),
  quiet: true,
  queuePort: 0,
  queuePrefix: `hm-test-${process.pid}`,
  // tests start their own agents (test/helpers/agent.ts); unsent tasks are swept quickly so tests stay short
  sweepEveryMs: 2000,
  // backup runs are scheduled by the tests themselves (scheduleDueRuns), so none appears behind their back
  backupScheduleEveryMs: 0,
  // the filename probe (E8) may reach 127.0.0.2 only, where its tests run source servers; every other loopback
  // address stays refused, so the tests prove the refusals against the real policy
  // failed authentication: the suite's own address 127.0.0.1 is exempt, so tests of 401s never meet the limit; the
  // limit's tests send from other loopback addresses and meet it after 5 failures
  functionEnv: {
    HM_SWEEP_UNSENT_S: '2',
    HM_PROBE_ALLOW_CIDRS: '127.0.0.2/32',
    HM_AUTH_FAIL_LIMIT: '5',
    HM_AUTH_FAIL_WINDOW_S: '60',
    HM_AUTH_FAIL_EXEMPT_CIDRS: '127.0.0.1/32',
  },
});
writeFileSync(out, JSON.stringify({ apiUrl: stack.apiUrl, databaseUrl: stack.databaseUrl, storeKind: stack.storeKind, adminToken: stack.adminToken, queueEndpoint: stack.queueEndpoint, queuePrefix: stack.queuePrefix, pid: process.pid }));
const shutdown = async () => {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
