/**
 * Bytes per stored telemetry row on each store (PGlite and PostgreSQL): a cluster's raw samples seeded as the
 * ingest numbers them (lib/seed-telemetry.ts: 2 nodes × 2 pools × 360 samples, an hour), rolled up by the
 * product's own maintenance (1- and 5-minute buckets), then each table measured by lib/row-bytes.ts (growth of
 * a scratch copy filled with the table's rows, so the figure does not depend on how many rows a run wrote). The
 * hosts section prices a host's kept telemetry with the same measurement over its swarm's rows.
 */
import { sql } from 'kysely';
import { maintainTelemetry } from '#shared/domain/telemetry/retention';
import { e14NodeId, seedTelemetry, type TelemetryLayout } from './lib/seed-telemetry.ts';
import { telemetryRowBytes } from './lib/row-bytes.ts';
import { postgresUnavailable, withStore, type StoreKind } from './lib/stores.ts';
import { runAlone, type Bench, type Row } from './lib/report.ts';

const LAYOUT: TelemetryLayout = { nodes: 2, poolsPerNode: 2, samples: 360 };

async function measure(kind: StoreKind): Promise<Row[]> {
  const section = `telemetry bytes per row (${kind})`;
  return withStore(kind, async (store) => {
    await seedTelemetry(store.db, LAYOUT);
    // the maintenance rolls a node up from the oldest sample it has not rolled up yet
    await sql`INSERT INTO telemetry_nodes (node_id, rollup_from) SELECT node_id, min(time) FROM pool_telemetry GROUP BY node_id`.execute(store.db);
    for (let n = 0; n < LAYOUT.nodes; n++) await maintainTelemetry(store.db, e14NodeId(n), new Date(), true);
    const measured = await telemetryRowBytes(store.db);
    return [...measured].map(([table, m]) => ({
      section,
      what: table,
      value: m ? `${m.bytes.toFixed(0)} B` : 'no rows',
      ok: m ? null : false,
      note: m
        ? `growth over ${m.measuredRows.toLocaleString('en')} rows copied from the ${m.sourceRows.toLocaleString('en')} stored`
        : 'the seeded store had none to copy',
    }));
  });
}

export const storeRows: Bench = {
  name: 'store-rows',
  async run() {
    const rows = await measure('pglite');
    const why = await postgresUnavailable();
    if (why) rows.push({ section: 'telemetry bytes per row (postgres)', what: 'bytes per row', value: 'skipped', ok: false, note: why });
    else rows.push(...(await measure('postgres')));
    return rows;
  },
};

await runAlone(import.meta, storeRows);
