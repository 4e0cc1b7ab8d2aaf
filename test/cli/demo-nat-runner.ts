/**
 * The demo's NAT route suggestions as an operator gets them after `npm start`: the demo seed loaded into a
 * brand-new empty store (a PGlite copy, or a scratch database on TEST_DATABASE_URL) through `seedDemoIfEmpty`,
 * the demo host's routing tables reported as its agent reports them (the agent's netstat collector against
 * the simulator seeded with the demo host), then E18 for every seeded NAT rule. Prints rule name → the
 * suggestions or the error, as JSON. Run as its own process by test/cli/demo-nat.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createDb } from '#store/db';
import { migrateToLatest } from '#store/migrate';
import { inTransaction } from '#store/tx';
import { seedDemoIfEmpty } from '#shared/seed/load';
import { scratchDatabase } from '#scripts/stack/store';
import { DEMO_NODE_ID, DEMO_SEED_FILE, seedHost } from '#scripts/stack/local-agent';
import { SimulatorExecutor } from '#simulator/executor';
import { routeTables } from '#agent/drivers/netstat';
import { reportInventory } from '#domain/nodes/registration';
import { listNatRules } from '#domain/network/nat-rules';
import { natRouteSuggestions } from '#domain/network/route-suggestions';
import { DomainError } from '#shared/errors/domain-errors';
import type { HostInventory } from '#domain/inventory';

const dir = mkdtempSync(join(tmpdir(), 'hm-demo-nat-'));
const store = process.env.TEST_DATABASE_URL
  ? await scratchDatabase(process.env.TEST_DATABASE_URL)
  : await (await import('#scripts/stack/pglite')).startEmbeddedStore({ dataDir: join(dir, 'pglite') });
const db = createDb(store.url, 2);
try {
  await migrateToLatest(db);
  await seedDemoIfEmpty(db);
  const host = seedHost(DEMO_SEED_FILE, DEMO_NODE_ID)!;
  const routes = await routeTables(new SimulatorExecutor({ statePath: join(dir, 'host.json'), seed: host }));
  const inventory = { hostname: host.hostname, os: 'FreeBSD 14.1-RELEASE', cpus: host.cpus, memoryBytes: host.memoryBytes, routes } as HostInventory;
  await inTransaction(db, (trx) => reportInventory(trx, DEMO_NODE_ID, inventory));
  const out: Record<string, unknown> = {};
  for (const rule of await listNatRules(db)) {
    try {
      out[rule.name] = { nodeId: rule.nodeId, suggestions: await natRouteSuggestions(db, rule.id) };
    } catch (err) {
      if (!(err instanceof DomainError)) throw err;
      out[rule.name] = { nodeId: rule.nodeId, error: err.code, detail: err.detail };
    }
  }
  console.log(JSON.stringify(out));
} finally {
  await db.destroy();
  await store.close();
  rmSync(dir, { recursive: true, force: true });
}
