/**
 * The stack the jest suite runs against: fresh store (a PGlite copy, or a scratch database on
 * TEST_DATABASE_URL), random ports, quiet logs. Writes its coordinates to the file named by argv[2] and
 * runs until SIGTERM.
 */
import { setting } from '#shared/config/read';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { tmpdir } from 'node:os';
import { startStack } from './stack.ts';
import { freePort } from './ports.ts';
import { PEBBLE_DIRECTORY_URL, pebbleCaFile } from './acme-test-server.ts';

const out = process.argv[2];
// one directory per stack: the suite runs one stack per jest worker
const logDir = resolve(process.env.HM_TEST_LOG_DIR || '.local/test-logs');
const dir = mkdtempSync(join(tmpdir(), 'hm-test-'));
const stack = await startStack({
  dataDir: join(dir, 'pglite'),
  scratchServerUrl: setting('TEST_DATABASE_URL'),
  httpPort: await freePort(),
  lambdaPort: await freePort(),
  demoSeed: false,
  logDir,
  quiet: true,
  queuePort: 0,
  queuePrefix: `hm-test-${process.pid}`,
  // tests start their own agents (test/helpers/agent.ts); unsent tasks are swept quickly so tests stay short
  sweepEveryMs: 2000,
  // notification delivery: polled often and retried after short waits, so the retry tests stay short
  deliverEveryMs: 200,
  // nodes of finished test files go silent at any time: a node_offline raised in the background would change the
  // notification counts other tests compare; the node_offline test calls notifyOfflineNodes itself
  notifyOfflineNodes: false,
  // backup runs are scheduled by the tests themselves (scheduleDueRuns), so none appears behind their back
  backupScheduleEveryMs: 0,
  // the filename probe (E8) may reach 127.0.0.2 only, where its tests run source servers; every other loopback
  // address stays refused, so the tests prove the refusals against the real policy
  // failed authentication: the suite's own address 127.0.0.1 is exempt, so tests of 401s never meet the limit; the
  // limit's tests send from other loopback addresses and meet it after 5 failures
  functionEnv: {
    // the store's bounds (the product's default is 5 s each): the suite's stacks share two cores with a TCG guest,
    // Chromium and the other pass, and PGlite answers one statement at a time; a CI run saw a VM power request (hostmgr vm stop)
    // answer 503 cluster_consensus_unavailable at 5 s. The tests of the bound itself set their own.
    HM_DB_CONNECT_TIMEOUT_MS: '30000',
    HM_DB_QUERY_TIMEOUT_MS: '30000',
    HM_SWEEP_UNSENT_S: '2',
    HM_NOTIFY_BACKOFF_S: '0.3',
    HM_NOTIFY_MAX_ATTEMPTS: '4',
    HM_NOTIFY_TIMEOUT_MS: '3000',
    HM_PROBE_ALLOW_CIDRS: '127.0.0.2/32',
    // notification deliveries may reach 127.0.0.3 only, where the notification tests run their SMTP server and HTTP
    // receivers (test/helpers/notify-peers.ts); every other loopback address stays refused
    HM_NOTIFY_ALLOW_CIDRS: '127.0.0.3/32',
    // the ACME directory check may reach pebble's listener (127.0.0.1) only
    HM_ACME_ALLOW_CIDRS: '127.0.0.1/32',
    HM_AUTH_FAIL_LIMIT: '5',
    HM_AUTH_FAIL_WINDOW_S: '60',
    HM_AUTH_FAIL_EXEMPT_CIDRS: '127.0.0.1/32',
    // ACME: the suite's pebble (test/helpers/pebble.ts) for both directories; E22 fetches it before queuing
    HM_ACME_DIRECTORY_URL: PEBBLE_DIRECTORY_URL,
    HM_ACME_STAGING_DIRECTORY_URL: PEBBLE_DIRECTORY_URL,
    HM_ACME_CA_FILE: pebbleCaFile(),
  },
});
writeFileSync(
  out,
  JSON.stringify({
    apiUrl: stack.apiUrl,
    databaseUrl: stack.databaseUrl,
    storeKind: stack.storeKind,
    adminToken: stack.adminToken,
    queueEndpoint: stack.queueEndpoint,
    queuePrefix: stack.queuePrefix,
    pid: process.pid,
    logDir,
  }),
);
const shutdown = async () => {
  await stack.stop();
  rmSync(dir, { recursive: true, force: true });
  process.exit(0);
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
