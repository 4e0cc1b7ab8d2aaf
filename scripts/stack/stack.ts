import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { createDb } from '#store/db';
import { migrateToLatest } from '#store/migrate';
import { installAdminToken } from './admin-token.ts';
import { ensureClusterKey } from '#domain/cluster/key';
import { seedFromFile, seedDemoIfEmpty } from '#shared/seed/load';
import { openStore, scratchDatabase, type StoreHandle } from './store.ts';
import { startOffline, type Offline } from './offline.ts';
import { startLocalQueue } from './queue.ts';
import { startSweeper } from './sweeper.ts';
import { startCertificateRenewals } from './certificate-renewals.ts';
import { startDeliveryLoop } from './notify-delivery.ts';
import { startBackupScheduler } from './backup-scheduler.ts';
import { DEMO_SEED_FILE, type LocalAgent } from './local-agent.ts';
import { planAgents, startLocalAgents, type AgentSelection, type LocalAgents } from './local-agents.ts';

export interface StackOptions {
  /** PGlite data dir (ignored when a database URL is given) */
  dataDir: string;
  /** a real PostgreSQL database to use as is */
  databaseUrl?: string;
  /** a real PostgreSQL server on which to create a scratch database (tests) */
  scratchServerUrl?: string;
  pglitePort?: number;
  httpPort: number;
  lambdaPort: number;
  /** install this admin token; else the one kept in `adminTokenFile`, else one is generated */
  adminToken?: string;
  /** keep the generated admin token here (0600) and reuse it at the next start (npm start: .local/admin-token) */
  adminTokenFile?: string;
  seedFile?: string;
  /** load the demo seed into an empty store */
  demoSeed: boolean;
  logDir: string;
  /** write serverless-offline's output to a file instead of the terminal */
  quiet?: boolean;
  /** fauxqs port (0: any free one) */
  queuePort?: number;
  /** queue name prefix (HM_QUEUE_PREFIX) */
  queuePrefix?: string;
  /**
   * simulated agents: for every seeded node with a simulated host (its host from the seed's `hosts[nodeId]`, or
   * its state file from an earlier start), none, or only these node ids; default none
   */
  agents?: AgentSelection;
  /** shorthand for `agents: [agentNodeId]` */
  agentNodeId?: string;
  /** port of the simulated hosts' SSH servers (one per node address; 0 or unset: a free one) */
  peerPort?: number;
  /** how often the in-process task sweeper runs (the scheduled function's stand-in) */
  sweepEveryMs?: number;
  /** how often the in-process notification delivery worker runs (the scheduled function's stand-in) */
  deliverEveryMs?: number;
  /** whether the in-process sweeper raises `node_offline` (default true) */
  notifyOfflineNodes?: boolean;
  /** how often the in-process backup scheduler runs (the `backups-schedule` function's stand-in); 0: not at all */
  backupScheduleEveryMs?: number;
  /** more environment for the functions (e.g. sweeper thresholds in tests) */
  functionEnv?: Record<string, string>;
  /** the control plane's advertised address, E16's `leaderIp` (HM_ADVERTISED_IP); default the loopback it serves on */
  advertisedIp?: string;
}

export interface Stack {
  apiUrl: string;
  databaseUrl: string;
  storeKind: 'pglite' | 'postgres';
  adminToken: string;
  /** where the admin token came from: HM_ADMIN_TOKEN, kept from an earlier start, new, or new since the kept one was revoked */
  adminTokenNote: 'given' | 'kept' | 'new' | 'replaced-revoked';
  seeded: string | null;
  /** the cluster key E16 checks, when this start created it (an empty store); null when one was set already */
  clusterKey: string | null;
  /** E16's `leaderIp` */
  advertisedIp: string;
  queueEndpoint: string;
  queuePrefix: string;
  /** the first of `agents.agents`, or null */
  agent: LocalAgent | null;
  agents: LocalAgents | null;
  stop(): Promise<void>;
}

/** Store → migrations → admin token → seed → queue (fauxqs) + sweeper → serverless-offline → agent. */
export async function startStack(o: StackOptions): Promise<Stack> {
  mkdirSync(o.logDir, { recursive: true });
  const stops: Array<() => Promise<void>> = [];
  const stop = async () => {
    for (const s of stops.reverse()) await s().catch((e) => console.error('stop:', e));
  };
  try {
    const store: StoreHandle = o.scratchServerUrl
      ? await scratchDatabase(o.scratchServerUrl)
      : await openStore({ databaseUrl: o.databaseUrl, dataDir: o.dataDir, port: o.pglitePort });
    stops.push(store.close);
    const db = createDb(store.url, 2);
    stops.push(() => db.destroy());
    await migrateToLatest(db);
    const { token, note: adminTokenNote } = await installAdminToken(db, { secret: o.adminToken, file: o.adminTokenFile });
    const clusterKey = await ensureClusterKey(db);
    const advertisedIp = o.advertisedIp ?? '127.0.0.1';
    const seeded = o.seedFile ? (await seedFromFile(db, o.seedFile), o.seedFile) : o.demoSeed && (await seedDemoIfEmpty(db)) ? 'demo' : null;
    const queue = await startLocalQueue(o.queuePort ?? 0);
    stops.push(queue.stop);
    const queuePrefix = o.queuePrefix ?? 'hostmgr-local';
    // this process sweeps too, through the same queue configuration as the functions
    Object.assign(process.env, { HM_QUEUE_ENDPOINT: queue.endpoint, HM_QUEUE_PREFIX: queuePrefix, ...o.functionEnv });
    const sweepLog = o.quiet
      ? (line: string) => appendFileSync(join(o.logDir, 'sweeper.log'), `${new Date().toISOString()} ${line}\n`)
      : (line: string) => console.log(line);
    stops.push(startSweeper(db, o.sweepEveryMs ?? 15_000, sweepLog, { notifyOffline: o.notifyOfflineNodes }));
    // managed certificates: due renewals queued like the hourly scheduled function (every 15 minutes here)
    stops.push(startCertificateRenewals(db, 15 * 60_000, sweepLog));
    // notification delivery (the outbox): polled often, so delivery follows a commit closely
    const deliveryLog = o.quiet
      ? (line: string) => appendFileSync(join(o.logDir, 'delivery.log'), `${new Date().toISOString()} ${line}\n`)
      : (line: string) => console.log(line);
    stops.push(startDeliveryLoop(db, o.deliverEveryMs ?? 500, deliveryLog));
    if (o.backupScheduleEveryMs !== 0) stops.push(startBackupScheduler(db, o.backupScheduleEveryMs ?? 20_000, sweepLog));
    const offline: Offline = await startOffline({
      httpPort: o.httpPort,
      lambdaPort: o.lambdaPort,
      env: {
        DATABASE_URL: store.url,
        HM_LOCAL_DATABASE_URL: store.url,
        // the store's connection budget: every function runs in its own worker thread with its own pool, so a
        // pool keeps at most 2 and closes them 200 ms after its last query; the server then holds about 1.5
        // connections per request in flight, not 2 per warm function (docs/testing.md: connection budget).
        // Measured: 8 requests in flight over 12 functions peak at 14 (1 s: 26; 30 s, the default: all 70 × 2)
        HM_DB_POOL_MAX: '2',
        HM_DB_IDLE_TIMEOUT_MS: '200',
        HM_QUEUE_ENDPOINT: queue.endpoint,
        HM_QUEUE_PREFIX: queuePrefix,
        HM_ADVERTISED_IP: advertisedIp,
        HM_SCHEDULES_ENABLED: 'false',
        ...o.functionEnv,
      },
      logFile: o.quiet ? join(o.logDir, 'offline.log') : undefined,
    });
    stops.push(offline.stop);
    const apiUrl = `${offline.url}/api`;
    const select: AgentSelection = o.agents ?? (o.agentNodeId ? [o.agentNodeId] : 'none');
    const localDir = join(o.dataDir, '..');
    const plan = await planAgents(db, { seedFile: o.seedFile ?? DEMO_SEED_FILE, localDir, select });
    const agents = plan.length
      ? await startLocalAgents({
          db,
          plan,
          apiUrl,
          queueEndpoint: queue.endpoint,
          queuePrefix,
          localDir,
          logDir: o.logDir,
          peerPort: o.peerPort,
          warn: (l) => console.warn(`warning: ${l}`),
        })
      : null;
    if (agents) stops.push(agents.stop);
    return {
      apiUrl,
      databaseUrl: store.url,
      storeKind: store.kind,
      adminToken: token,
      adminTokenNote,
      seeded,
      clusterKey,
      advertisedIp,
      queueEndpoint: queue.endpoint,
      queuePrefix,
      agent: agents?.agents[0] ?? null,
      agents,
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
