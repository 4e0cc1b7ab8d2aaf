import type { SimHost } from '#shared/seed/host/schema';
import { wobble } from '../format.ts';
import { registerSysctlProvider, type Oid } from '../sysctl-tree.ts';

/**
 * kstat.zfs.misc.arcstats.* of OpenZFS 2.2 on FreeBSD 14, in the order `sysctl -q kstat.zfs.misc.arcstats`
 * prints them (test/fixtures/freebsd/sysctl-kstat-zfs-misc-arcstats-freebsd14.txt). Sizes follow the seeded
 * ARC; counters grow with time since boot at the seeded access rate and hit ratio (wobbling slowly), so two
 * reads a few seconds apart give meaningful deltas and ratios.
 */
const KEYS = (
  'abd_chunk_waste_size cached_only_in_progress arc_raw_size arc_sys_free arc_need_free demand_iohit_prescient_prefetch ' +
  'demand_hit_prescient_prefetch prescient_prefetch demand_iohit_predictive_prefetch demand_hit_predictive_prefetch ' +
  'predictive_prefetch async_upgrade_sync arc_dnode_limit arc_meta_used arc_prune arc_loaned_bytes arc_tempreserve arc_no_grow ' +
  'memory_available_bytes memory_free_bytes memory_all_bytes memory_indirect_count memory_direct_count memory_throttle_count ' +
  'l2_rebuild_log_blks l2_rebuild_bufs_precached l2_rebuild_bufs l2_rebuild_asize l2_rebuild_size l2_rebuild_lowmem ' +
  'l2_rebuild_cksum_lb_errors l2_rebuild_dh_errors l2_rebuild_io_errors l2_rebuild_unsupported l2_rebuild_success ' +
  'l2_data_to_meta_ratio l2_log_blk_count l2_log_blk_asize l2_log_blk_avg_asize l2_log_blk_writes l2_hdr_size l2_asize l2_size ' +
  'l2_io_error l2_cksum_bad l2_abort_lowmem l2_free_on_write l2_evict_l1cached l2_evict_reading l2_evict_lock_retry ' +
  'l2_writes_lock_retry l2_writes_error l2_writes_done l2_writes_sent l2_write_bytes l2_read_bytes l2_rw_clash l2_feeds ' +
  'l2_bufc_metadata_asize l2_bufc_data_asize l2_mfu_asize l2_mru_asize l2_prefetch_asize l2_misses l2_hits ' +
  'uncached_evictable_metadata uncached_evictable_data uncached_metadata uncached_data uncached_size ' +
  'mfu_ghost_evictable_metadata mfu_ghost_evictable_data mfu_ghost_metadata mfu_ghost_data mfu_ghost_size ' +
  'mfu_evictable_metadata mfu_evictable_data mfu_metadata mfu_data mfu_size mru_ghost_evictable_metadata ' +
  'mru_ghost_evictable_data mru_ghost_metadata mru_ghost_data mru_ghost_size mru_evictable_metadata mru_evictable_data ' +
  'mru_metadata mru_data mru_size anon_evictable_metadata anon_evictable_data anon_metadata anon_data anon_size other_size ' +
  'bonus_size dnode_size dbuf_size metadata_size data_size hdr_size overhead_size uncompressed_size compressed_size size ' +
  'c_max c_min c pm pd meta hash_chain_max hash_chains hash_collisions hash_elements_max hash_elements evict_l2_skip ' +
  'evict_l2_ineligible evict_l2_eligible_mru evict_l2_eligible_mfu evict_l2_eligible evict_l2_cached evict_not_enough ' +
  'evict_skip access_skip mutex_miss deleted uncached_hits mfu_ghost_hits mfu_hits mru_ghost_hits mru_hits ' +
  'prefetch_metadata_misses prefetch_metadata_iohits prefetch_metadata_hits prefetch_data_misses prefetch_data_iohits ' +
  'prefetch_data_hits demand_metadata_misses demand_metadata_iohits demand_metadata_hits demand_data_misses ' +
  'demand_data_iohits demand_data_hits misses iohits hits'
).split(' ');

const HIT_PERIOD_S = 600;
const HIT_SWING = 0.04;

/** ∫₀ᵗ (h + s·sin(2πx/P)) dx: accesses that hit up to t seconds after boot, per access per second. */
function hitIntegral(h: number, t: number): number {
  return h * t + ((HIT_SWING * HIT_PERIOD_S) / (2 * Math.PI)) * (1 - Math.cos((2 * Math.PI * t) / HIT_PERIOD_S));
}

type Arc = NonNullable<SimHost['arc']>;

function arcMax(state: SimHost, arc: Arc): number {
  const tunable = state.sysctls.find((s) => s.name === 'vfs.zfs.arc_max');
  const n = tunable ? Number(tunable.value) : 0;
  return n > 0 ? n : arc.maxBytes;
}

export function arcstats(state: SimHost, arc: Arc, now: number): Record<string, number> {
  const t = Math.max(0, (now - (state.bootTimeMs ?? now)) / 1000);
  const rate = arc.accessesPerSecond ?? 0;
  const h = Math.min(1 - HIT_SWING, Math.max(HIT_SWING, arc.hitRatio ?? 0.9));
  const accesses = rate * t;
  const iohits = Math.floor(accesses * 0.002);
  const hits = Math.floor(rate * hitIntegral(h, t));
  const misses = Math.max(0, Math.floor(accesses) - hits - iohits);
  const cMax = arcMax(state, arc);
  const c = Math.min(cMax, Math.max(arc.minBytes, arc.targetBytes));
  const size = Math.floor(Math.min(c, arc.sizeBytes) * (0.97 + 0.03 * wobble(t, 180)));
  const data = Math.floor(size * 0.42);
  const metadata = Math.floor(size * 0.3);
  const hdr = Math.floor(size * 0.014);
  const other = size - data - metadata - hdr;
  const compressed = Math.floor((data + metadata) * 0.96);
  const l2Size = arc.l2SizeBytes ?? 0;
  const l2Hits = l2Size ? Math.floor(misses * (arc.l2HitRatio ?? 0.3)) : 0;
  const l2Misses = l2Size ? misses - l2Hits : 0;
  const split = (n: number, ...fractions: number[]) => {
    const parts = fractions.map((f) => Math.floor(n * f));
    parts.push(n - parts.reduce((a, b) => a + b, 0));
    return parts;
  };
  const [ddHits, dmHits, pdHits, pmHits] = split(hits, 0.38, 0.58, 0.03);
  const [ddMiss, dmMiss, pdMiss, pmMiss] = split(misses, 0.77, 0.19, 0.03);
  const [ddIo, dmIo, pdIo, pmIo] = split(iohits, 0.05, 0.04, 0.0);
  const [mruHits, mfuHits] = split(hits, 0.16);
  const v: Record<string, number> = {
    memory_all_bytes: state.memoryBytes,
    memory_free_bytes: Math.max(0, state.memoryBytes - size - Math.floor(state.memoryBytes * 0.1)),
    memory_available_bytes: Math.max(0, state.memoryBytes - size - Math.floor(state.memoryBytes * 0.12)),
    arc_meta_used: metadata + hdr + other,
    arc_dnode_limit: Math.floor(cMax / 10),
    l2_size: l2Size,
    l2_asize: Math.floor(l2Size * 0.6),
    l2_hdr_size: l2Size ? Math.floor(l2Size / 4096) * 88 : 0,
    l2_hits: l2Hits,
    l2_misses: l2Misses,
    l2_read_bytes: l2Hits * 16384,
    l2_write_bytes: l2Size ? Math.floor(t * 256 * 1024) : 0,
    l2_writes_sent: l2Size ? Math.floor(t / 2) : 0,
    l2_writes_done: l2Size ? Math.floor(t / 2) : 0,
    l2_feeds: l2Size ? Math.floor(t) : 0,
    mfu_size: Math.floor(size * 0.3),
    mfu_data: Math.floor(data * 0.55),
    mfu_metadata: Math.floor(metadata * 0.23),
    mru_size: Math.floor(size * 0.42),
    mru_data: Math.floor(data * 0.45),
    mru_metadata: Math.floor(metadata * 0.77),
    other_size: other,
    dbuf_size: Math.floor(other * 0.22),
    dnode_size: Math.floor(other * 0.56),
    bonus_size: Math.floor(other * 0.22),
    metadata_size: metadata,
    data_size: data,
    hdr_size: hdr,
    overhead_size: Math.floor(size * 0.21),
    compressed_size: compressed,
    uncompressed_size: Math.floor(compressed * 1.76),
    size,
    c_max: cMax,
    c_min: arc.minBytes,
    c,
    hash_elements: Math.floor(size / 17400),
    hash_elements_max: Math.floor(cMax / 34800),
    hash_collisions: Math.floor(misses * 0.24),
    hash_chains: Math.floor(size / 2_000_000),
    hash_chain_max: 4,
    deleted: Math.floor(misses * 1.4),
    evict_skip: Math.floor(misses * 0.007),
    evict_not_enough: Math.floor(misses / 5000),
    evict_l2_eligible: Math.floor(misses * 36_000),
    evict_l2_eligible_mru: Math.floor(misses * 21_700),
    evict_l2_eligible_mfu: Math.floor(misses * 14_300),
    evict_l2_ineligible: Math.floor(misses * 1_000),
    mru_hits: mruHits,
    mfu_hits: mfuHits,
    mru_ghost_hits: Math.floor(misses * 0.043),
    mfu_ghost_hits: Math.floor(misses * 0.097),
    demand_data_hits: ddHits,
    demand_metadata_hits: dmHits,
    prefetch_data_hits: pdHits,
    prefetch_metadata_hits: pmHits,
    demand_data_misses: ddMiss,
    demand_metadata_misses: dmMiss,
    prefetch_data_misses: pdMiss,
    prefetch_metadata_misses: pmMiss,
    demand_data_iohits: ddIo,
    demand_metadata_iohits: dmIo,
    prefetch_data_iohits: pdIo,
    prefetch_metadata_iohits: pmIo,
    predictive_prefetch: Math.floor(accesses * 0.004),
    demand_hit_predictive_prefetch: Math.floor(accesses * 0.0013),
    arc_prune: Math.floor(t / 3600),
    async_upgrade_sync: Math.floor(accesses * 0.0001),
    hits,
    iohits,
    misses,
  };
  return Object.fromEntries(KEYS.map((k) => [k, v[k] ?? 0]));
}

registerSysctlProvider('zfs-arcstats', (state, now) => {
  if (!state.arc) return [];
  const stats = arcstats(state, state.arc, now);
  return KEYS.map(
    (k): Oid => ({ name: `kstat.zfs.misc.arcstats.${k}`, type: 'uint64_t', value: String(stats[k]), writable: false, stats: true, description: '' }),
  );
});
