/**
 * The demo's NAT route suggestions as an operator gets them after `npm start`: the demo seed loaded into a
 * brand-new empty store (a PGlite copy, or a scratch database on TEST_DATABASE_URL) through `seedDemoIfEmpty`,
 * the demo host's routing tables reported as its agent reports them (the agent's netstat collector against
 * the simulator seeded with the demo host), then E18 for every seeded NAT rule. Prints rule name → the
 * suggestions or the error, as JSON. Run as its own process by test/cli/demo-nat.test.ts.
 */
import { join } from 'node:path';
import { inTransaction } from '#store/tx';
import { seedDemoIfEmpty } from '#shared/seed/load';
import { DEMO_NODE_ID, DEMO_SEED_FILE, seedHost } from '#scripts/stack/local-agent';
import { SimulatorExecutor } from '#simulator/executor';
import { routeTables } from '#agent/drivers/netstat';
import { reportInventory } from '#domain/nodes/registration';
import { listNatRules } from '#domain/network/nat-rules';
import { natRouteSuggestions } from '#domain/network/route-suggestions';
import { DomainError } from '#shared/errors/domain-errors';
import type { HostInventory } from '#domain/inventory';
import { printFromEmptyStore } from './empty-store.ts';

await printFromEmptyStore(async (db, dir) => {
  await seedDemoIfEmpty(db);
  const host = seedHost(DEMO_SEED_FILE, DEMO_NODE_ID)!;
  const routes = await routeTables(new SimulatorExecutor({ statePath: join(dir, 'host.json'), seed: host }));
  const inventory: HostInventory = { hostname: host.hostname, os: 'FreeBSD 14.1-RELEASE', cpus: host.cpus, memoryBytes: host.memoryBytes, routes };
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
  return out;
});
