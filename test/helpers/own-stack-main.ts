/**
 * A stack of one test's own, as a process: startStack on the ports and PGlite data dir the test chose (kept across
 * a stop and a start, unlike the suite's stacks), or with `store` only the store on that data dir. Writes its
 * coordinates to `out` and runs until SIGTERM, then stops all it started. A process of its own because jest's
 * module loader cannot load fauxqs (an ES module only), and so that stopping it stops every part as a real stop
 * would: serverless-offline, fauxqs, the sweepers and the store.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { startStack } from '#scripts/stack/stack';
import { openStore } from '#scripts/stack/store';
import type { OwnStackConfig } from './own-stack.ts';

const cfg = JSON.parse(readFileSync(process.argv[2], 'utf8')) as OwnStackConfig & { out: string; storeOnly: boolean };

let stop: () => Promise<void>;
if (cfg.storeOnly) {
  const store = await openStore({ dataDir: cfg.dataDir, port: cfg.ports.pglite });
  writeFileSync(cfg.out, JSON.stringify({ databaseUrl: store.url }));
  stop = store.close;
} else {
  const stack = await startStack({
    dataDir: cfg.dataDir,
    logDir: cfg.logDir,
    httpPort: cfg.ports.http,
    lambdaPort: cfg.ports.lambda,
    pglitePort: cfg.ports.pglite,
    queuePort: cfg.ports.queue,
    queuePrefix: `hm-own-${cfg.ports.http}`,
    demoSeed: false,
    quiet: true,
    agents: 'none',
    // nothing here for the sweeper or the backup scheduler to do
    sweepEveryMs: 3_600_000,
    backupScheduleEveryMs: 0,
  });
  writeFileSync(cfg.out, JSON.stringify({ apiUrl: stack.apiUrl, databaseUrl: stack.databaseUrl }));
  stop = stack.stop;
}
const shutdown = async () => {
  await stop();
  process.exit(0);
};
process.on('SIGTERM', shutdown);
process.on('SIGINT', shutdown);
