/**
 * npm start: the whole local stack — build (when dist/ is stale), PGlite (or DATABASE_URL), migrations, an
 * admin token, the demo seed (or HM_SEED), serverless-offline on http://localhost:3000/api, and a simulated
 * agent per seeded host. Ctrl-C stops everything; nothing it started outlives it.
 */
import { buildIfStale, BuildFailed } from './stack/build-if-stale.ts';
import { startConfig, StartConfigError } from './stack/start-config.ts';
import { setting } from '#shared/config/read';

if (process.argv.includes('--help')) {
  console.log(`npm start [-- --verbose] — run the control plane locally

Prints a short banner (API, admin token, cluster key, the simulated nodes, where the logs are) and keeps
the request and agent logs in files under .local/logs/. --verbose (or HM_VERBOSE=1) shows them live.

Environment:
  DATABASE_URL     use this PostgreSQL database instead of the embedded PGlite store under .local/pglite
  HM_ADMIN_TOKEN   install this admin token instead of the kept one: "hm_" + 43 base64url characters
                   (npm run token -- generate prints one); a revoked one is refused. Unset, npm start
                   keeps one generated admin token in $HM_LOCAL_DIR/admin-token (mode 0600) and reuses
                   it at every start (a revoked one is replaced)
  HM_SEED          load this seed file (JSON, see shared/seed/README.md) before serving
  HM_LOCAL_DIR     where the embedded store, simulated hosts, agent state, logs, the kept admin token and
                   stack.json (the running stack's addresses, for npm run token/seed/migrate) live (default .local)
  HM_HTTP_PORT     API port (default 3000); HM_LAMBDA_PORT (default 3002); HM_PGLITE_PORT (default 5433)
  HM_QUEUE_PORT    the local SQS (fauxqs) port (default 9324)
  HM_PEER_SSH_PORT port of the simulated hosts' SSH servers, one per node address (default: a free one)
  HM_ADVERTISED_IP the control plane's address that joining nodes name as leaderIp (E16); default 127.0.0.1
  HM_AGENT_NODE    run simulated agents only for these node ids (comma-separated); "none" runs none.
                   Default: one per node that has a simulated host (the seed's hosts[<id>]), members first;
                   each host's state lives in .local/simulator/<id>.json

dist/ is built first when it is missing or older than the sources.`);
  process.exit(0);
}

const fail = (message: string, code = 1): never => {
  console.error(`npm start: ${message}`);
  process.exit(code);
};

let cfg;
try {
  cfg = startConfig(process.env);
} catch (err) {
  if (!(err instanceof StartConfigError)) throw err;
  fail(err.message, 2);
}
const verbose = process.argv.includes('--verbose') || setting('HM_VERBOSE');
// checked with the other settings by startConfig; unset: a free port
const peerPort = process.env.HM_PEER_SSH_PORT?.trim() ? setting('HM_PEER_SSH_PORT') : 0;

try {
  buildIfStale();
} catch (err) {
  if (err instanceof BuildFailed) fail(err.message);
  throw err;
}

// loaded after the build: the stack imports code that reads what the build generates
const { startStack } = await import('./stack/stack.ts');
const { TokenRevokedError } = await import('#shared/auth/tokens');
const { SeedError } = await import('#shared/seed/load');
const { StoreLockedError } = await import('./stack/store-lock.ts');

const { writeRunningStack } = await import('./stack/running-stack.ts');
const { join } = await import('node:path');
let forgetStack = () => {};
let stopping: Promise<void> | null = null;
let stack: Awaited<ReturnType<typeof startStack>> | null = null;
// installed before the stack starts, so a Ctrl-C during the start stops what already runs
for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.on(sig, () => {
    if (stopping) return;
    console.log('stopping…');
    forgetStack();
    stopping = (stack ? stack.stop() : Promise.resolve()).finally(() => process.exit(0));
  });
}

try {
  stack = await startStack({
    dataDir: `${cfg!.localDir}/pglite`,
    databaseUrl: cfg!.databaseUrl,
    pglitePort: cfg!.pglitePort,
    httpPort: cfg!.httpPort,
    lambdaPort: cfg!.lambdaPort,
    adminToken: cfg!.adminToken,
    adminTokenFile: join(cfg!.localDir, 'admin-token'),
    seedFile: cfg!.seedFile,
    demoSeed: true,
    logDir: `${cfg!.localDir}/logs`,
    // request logs (serverless-offline), the sweeper's and the delivery worker's go to files unless --verbose
    quiet: !verbose,
    queuePort: cfg!.queuePort,
    agents: cfg!.agents,
    advertisedIp: cfg!.advertisedIp,
    peerPort,
  });
} catch (err) {
  if (err instanceof TokenRevokedError) {
    fail(
      `HM_ADMIN_TOKEN is revoked (token id ${err.tokenId}); revocation is final. Set a new one (npm run token -- generate) or unset HM_ADMIN_TOKEN to have npm start generate one.`,
    );
  }
  if (err instanceof SeedError) fail(err.message);
  if (err instanceof StoreLockedError) fail(err.message);
  fail(`the stack did not start: ${(err as Error).stack ?? err}\nlogs: ${cfg!.localDir}/logs/`);
}
if (stopping) await stopping;
const s = stack!;
// the CLIs beside this stack (npm run token, seed, migrate) find it here, on whatever ports it was given
forgetStack = writeRunningStack(cfg!.localDir, {
  apiUrl: s.apiUrl,
  storeUrl: s.databaseUrl,
  adminTokenFile: cfg!.adminToken ? null : join(cfg!.localDir, 'admin-token'),
});
process.on('exit', () => forgetStack());
const agents = s.agents?.agents ?? [];

const { relative } = await import('node:path');
const { followLogs } = await import('./stack/follow-logs.ts');
const rel = (p: string) => (relative(process.cwd(), p).startsWith('..') ? p : relative(process.cwd(), p) || '.');
const ADMIN_NOTES = {
  given: 'HM_ADMIN_TOKEN',
  kept: `kept in ${rel(join(cfg!.localDir, 'admin-token'))}, the same at every start`,
  new: `new; kept in ${rel(join(cfg!.localDir, 'admin-token'))} for the next starts`,
  'replaced-revoked': `new: the kept one was revoked; kept in ${rel(join(cfg!.localDir, 'admin-token'))}`,
} as const;
const api = s.apiUrl.replace('127.0.0.1', 'localhost');
const peerPortText = s.agents?.peer ? `, SSH port ${s.agents.peer.port}` : '';
// the first screen: what a newcomer needs, nothing else (the details are in the logs and `npm start -- --help`)
console.log(
  [
    '',
    `  hostmgr is up — ${s.storeKind === 'pglite' ? 'PGlite store' : 'PostgreSQL store'}, seed: ${s.seeded ?? 'none (store already had data)'}`,
    `  API:          ${api}   (reference in a browser: ${api}/docs)`,
    `  Console:      ${api.replace(/\/api$/, '/')}   (sign in with the admin token)`,
    `  Admin token:  ${s.adminToken}   (${ADMIN_NOTES[s.adminTokenNote]})`,
    `  Cluster key:  ${s.clusterKey ? `${s.clusterKey}   (shown once; rotate: npm run cluster -- key rotate)` : 'set earlier (not shown; npm run cluster -- key rotate prints a new one)'}`,
    `  Nodes:        ${agents.length ? `${agents.length} simulated${peerPortText}` : 'none simulated'}`,
    ...agents.map((a) => `    ${a.name.padEnd(10)} ${a.address.padEnd(13)} ${a.nodeId}`),
    `  Logs:         ${rel(`${cfg!.localDir}/logs`)}/ (requests: offline.log, agents: agent-<node>.log)${verbose ? ', shown live below' : '; --verbose shows them live'}`,
    `  Try:          curl -H "Authorization: Bearer ${s.adminToken}" ${api}/notifications/count`,
    '',
  ].join('\n'),
);
if (verbose)
  followLogs(
    agents.map((a) => ({ label: `agent ${a.name}`, path: a.logFile })),
    (line) => console.log(line),
  );
