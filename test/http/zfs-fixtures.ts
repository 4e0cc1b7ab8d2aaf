/**
 * Arrangements shared by the ZFS, tunables and telemetry tests (not a test file): nodes with a reported
 * inventory written straight into the store, through the same projection the agent endpoints use.
 */
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { testDb, uid } from '../helpers/api.ts';
import { applyInventory } from '#domain/pools/apply-inventory';
import type { HostInventory, PoolInventory, TunableInventory } from '#domain/inventory';
import type { ArcSample, PoolSample, TelemetrySample } from '#domain/telemetry/sample';

/** A random pool GUID (decimal uint64, as zpool prints it). */
export const guid = () => String(BigInt(`0x${randomUUID().replace(/-/g, '').slice(0, 15)}`) + 1000n);

export interface TestHost {
  nodeId: string;
  tank: PoolInventory;
  backup: PoolInventory;
}

/** Two pools: `tank` (mirror ada1/ada2 + hot spare ada5) and `backup` (ada3); ada4 and ada6 are free disks. */
export function sampleInventory(extra: Partial<HostInventory> = {}): HostInventory & { pools: PoolInventory[] } {
  const tank: PoolInventory = {
    name: `tank${uid()}`,
    guid: guid(),
    health: 'ONLINE',
    size: 1_000_000_000,
    allocated: 400_000_000,
    free: 600_000_000,
    vdevs: [
      {
        name: 'mirror-0',
        type: 'mirror',
        state: 'ONLINE',
        guid: guid(),
        children: [
          { name: 'ada1', type: 'disk', state: 'ONLINE', guid: guid() },
          { name: 'ada2', type: 'disk', state: 'ONLINE', guid: guid() },
        ],
      },
      { name: 'spares', type: 'spare', state: 'ONLINE', children: [{ name: 'ada5', type: 'disk', state: 'AVAIL', guid: guid() }] },
    ],
  };
  const backup: PoolInventory = {
    name: `backup${uid()}`,
    guid: guid(),
    health: 'ONLINE',
    size: 500_000_000,
    allocated: 100_000_000,
    free: 400_000_000,
    vdevs: [{ name: 'ada3', type: 'disk', state: 'ONLINE', guid: guid() }],
  };
  return { hostname: `host-${uid()}`, os: 'FreeBSD 14.1-RELEASE', cpus: 4, memoryBytes: 8 << 30, pools: [tank, backup], disks: ['ada4', 'ada6'], ...extra };
}

export const sampleTunables: TunableInventory[] = [
  { name: 'kern.maxfiles', type: 'integer', value: '32768', writable: true },
  { name: 'kern.ipc.somaxconn', type: 'unsigned integer', value: '128', writable: true },
  { name: 'vfs.zfs.arc_max', type: 'unsigned long', value: '0', writable: true },
  { name: 'net.inet.ip.forwarding', type: 'int8_t', value: '0', writable: true },
  { name: 'kern.hostname', type: 'string', value: 'host', writable: true },
  { name: 'kern.ostype', type: 'string', value: 'FreeBSD', writable: false },
  { name: 'kern.clockrate', type: 'opaque', value: '', writable: true },
  { name: 'hw.usb.disable_enumeration', type: 'boolean', value: '0', writable: true },
];

/** Inserts a node (member unless said) and projects its inventory; `createdAt` makes it older than others. */
export async function createHost(
  opts: { status?: 'member' | 'pending'; createdAt?: Date; inventory?: HostInventory } = {},
): Promise<TestHost & { inventory: HostInventory }> {
  const db = testDb();
  const nodeId = randomUUID();
  const inventory = opts.inventory ?? sampleInventory({ tunables: sampleTunables });
  await db
    .insertInto('nodes')
    .values({
      id: nodeId,
      name: `node-${uid()}`,
      ip: '192.0.2.10',
      status: opts.status ?? 'member',
      inventory: JSON.stringify(inventory),
      ...(opts.createdAt ? { created_at: opts.createdAt } : {}),
    })
    .execute();
  await applyInventory(db, nodeId, inventory);
  const [tank, backup] = inventory.pools ?? [];
  return { nodeId, tank, backup, inventory };
}

/** Forgets active tasks of a resource so a later test can start another exclusive one. */
export async function finishTasks(resource: string) {
  await testDb()
    .updateTable('tasks')
    .set({ status: 'failed', error: 'ended by test', finished_at: sql<Date>`now()` })
    .where('resource', '=', resource)
    .where('status', 'in', ['queued', 'running'])
    .execute();
}

// ── telemetry ──

export function poolSample(p: { guid: string; name: string }, overrides: Partial<PoolSample> = {}): PoolSample {
  return {
    guid: p.guid,
    name: p.name,
    health: 'ONLINE',
    size: 1_000_000,
    allocated: 400_000,
    free: 600_000,
    fragmentation: 7,
    dedupRatio: 1,
    readIOPS: 10,
    writeIOPS: 20,
    readBytesPerSecond: 4096,
    writeBytesPerSecond: 8192,
    readLatencyNanos: 150_000,
    writeLatencyNanos: 250_000,
    ...overrides,
  };
}

/** ARC sample with the given lifetime counters (zero for those not named). */
export function arcSample(counters: Partial<ArcSample['counters']> = {}): ArcSample {
  const c = {
    hits: 0,
    misses: 0,
    demandHits: 0,
    demandMisses: 0,
    prefetchHits: 0,
    prefetchMisses: 0,
    l2Hits: 0,
    l2Misses: 0,
    evictions: 0,
    l2ReadBytes: 0,
    l2WriteBytes: 0,
    evictNotEnough: 0,
    memoryThrottle: 0,
    ...counters,
  };
  return {
    counters: c,
    sizes: {
      size: 4e9,
      targetSize: 5e9,
      minSize: 1e9,
      maxSize: 8e9,
      dataSize: 3e9,
      metadataSize: 5e8,
      headerSize: 1e7,
      otherSize: 2e7,
      compressedSize: 2e9,
      uncompressedSize: 3e9,
      l2Size: 0,
      l2Allocated: 0,
      l2DeviceCount: 0,
    },
  };
}

export const sample = (time: number, pools: PoolSample[], arc?: ArcSample): TelemetrySample => ({ time, intervalSeconds: 10, pools, ...(arc ? { arc } : {}) });

/**
 * Inserts `n` raw pool rows for one pool straight into the store (ids from the stream counter, 10 s apart),
 * numbered within node and pool as the ingest numbers them — or, `numbered: false`, left unnumbered (seq 0).
 */
export async function bulkPoolRows(
  nodeId: string,
  pool: { guid: string; name: string },
  n: number,
  firstTime: Date,
  opts: { numbered?: boolean } = {},
): Promise<void> {
  const numbered = opts.numbered ?? true;
  await sql`
    WITH c AS (UPDATE telemetry_cursors SET last_id = last_id + ${n} WHERE stream = 'pool' RETURNING last_id),
         s AS (SELECT coalesce(max(node_seq), 0) AS node_base, coalesce(max(pool_seq) FILTER (WHERE pool_guid = ${pool.guid}), 0) AS pool_base
               FROM pool_telemetry WHERE node_id = ${nodeId})
    INSERT INTO pool_telemetry (id, node_id, pool_guid, pool_name, time, interval_seconds, sample_count, size, allocated, free,
      fragmentation, dedup_ratio, health, worst_health, read_iops, write_iops, read_bytes_per_second, write_bytes_per_second,
      read_latency_nanos, write_latency_nanos, max_read_iops, max_write_iops, max_read_bytes_per_second,
      max_write_bytes_per_second, max_read_latency_nanos, max_write_latency_nanos, node_seq, pool_seq)
    SELECT c.last_id - ${n} + g, ${nodeId}, ${pool.guid}, ${pool.name}, ${firstTime}::timestamptz + (g - 1) * interval '10 seconds', 10, 1,
      1000, 400, 600, 5, 1, 'ONLINE', 'ONLINE', g, g, g, g, g, g, g, g, g, g, g, g,
      CASE WHEN ${numbered} THEN s.node_base + g ELSE 0 END, CASE WHEN ${numbered} THEN s.pool_base + g ELSE 0 END
    FROM c, s, generate_series(1, ${n}::int) g
  `.execute(testDb());
}

/** A member node older than every other: the primary node that endpoints without `nodeId` act on. */
export async function createPrimaryHost() {
  const oldest = await testDb().selectFrom('nodes').select('created_at').where('status', '=', 'member').orderBy('created_at').limit(1).executeTakeFirst();
  const createdAt = new Date((oldest?.created_at.getTime() ?? Date.now()) - 86_400_000);
  return createHost({ createdAt });
}
