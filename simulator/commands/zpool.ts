import type { SimHost, SimPool } from '#shared/seed/host/schema';
import { BadPropertyError, getopt, nicenum, phaseOf, propertyListing, rawTime, table, wobble } from '../format.ts';
import { fail, registerSubcommand, registerTicker, withUsage, type CommandContext, type CommandOutput } from '../registry.ts';
import { fileSize, isFile } from '../file-tree.ts';
import { deviceOwner, devName, findLeaf, leafSize, newGuid, poolFree, sectionVdevs, walk, type VNode } from '../pool-model.ts';
import { LIST_DEFAULT, POOL_PROPS, canonicalPoolProp, propValue } from './zpool-props.ts';
import { isHealthy, renderStatus } from './zpool-status.ts';

/**
 * zpool list / get / status / replace / detach / iostat, in OpenZFS 2.2's formats on FreeBSD 14.
 * Messages are zpool's own (see test/fixtures/freebsd/zpool-*.txt and SOURCES.md).
 */

const noSuchPool = (name: string) => `cannot open '${name}': no such pool\n`;
/** zpool_do_replace / zpool_do_detach return libzfs's -1 when the kernel refuses: exit status 255 */
const LIBZFS_FAILED = 255;

/** Operands that name pools: known pools, plus a message for each unknown one. */
function selectPools(host: SimHost, names: string[]): { pools: SimPool[]; errors: string } {
  // pool_list_get keeps pools in an AVL tree ordered by name (zpool_iter.c zpool_compare): every listing is by name
  const byName = [...host.pools].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  if (!names.length) return { pools: byName, errors: '' };
  let errors = '';
  const pools: SimPool[] = [];
  for (const n of names) {
    const p = host.pools.find((x) => x.name === n);
    if (p) pools.push(p);
    else errors += noSuchPool(n);
  }
  return { pools, errors };
}

function propList(spec: string | undefined, dflt: string[]): string[] {
  if (!spec) return dflt;
  return spec.split(',').map((name) => {
    const canon = canonicalPoolProp(name);
    if (!canon) throw new BadPropertyError(`bad property list: invalid property '${name}'`);
    return canon;
  });
}

// ---- zpool list [-Hp] [-o property[,...]] [pool]...
function list(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'gHLpPvo:T:');
  const props = propList(o.values.get('o'), LIST_DEFAULT);
  const { pools, errors } = selectPools(ctx.state, o.operands);
  const parsable = o.flags.has('p');
  // zpool_do_list: the message only without -H (cb_scripted) and without operands
  if (!pools.length && !o.operands.length) return { stdout: o.flags.has('H') ? '' : 'no pools available\n' };
  const rows = pools.map((p) => props.map((prop) => propValue(prop, ctx.state, p, parsable)));
  const stdout = o.flags.has('H')
    ? rows.map((r) => r.join('\t') + '\n').join('')
    : rows.length
      ? table(
          props.map((p) => POOL_PROPS[p].header),
          rows,
          props.map((p) => Boolean(POOL_PROPS[p].numeric)),
        )
      : '';
  return { code: errors ? 1 : 0, stdout, stderr: errors };
}

// ---- zpool get [-Hp] [-o field[,...]] all|property[,...] [pool]...
function get(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'Hpo:');
  const [propSpec, ...poolNames] = o.operands;
  if (!propSpec) return fail('missing property argument', 2);
  const props = propSpec === 'all' ? Object.keys(POOL_PROPS).filter((p) => p !== 'name') : propList(propSpec, []);
  const fields = (o.values.get('o') ?? 'name,property,value,source').split(',');
  for (const f of fields) if (!['name', 'property', 'value', 'source'].includes(f)) return fail(`invalid field '${f}'`, 2);
  // zpool_do_get: a first operand that is not a pool (nor a vdev list of one) ends the command
  if (poolNames.length && !ctx.state.pools.some((p) => p.name === poolNames[0]))
    return fail(`Cannot get properties of ${poolNames[0]}: no such pool available.`);
  const { pools, errors } = selectPools(ctx.state, poolNames);
  const parsable = o.flags.has('p');
  const rows: string[][] = [];
  for (const pool of pools)
    for (const prop of props) {
      const cell = { name: pool.name, property: prop, value: propValue(prop, ctx.state, pool, parsable), source: POOL_PROPS[prop].source(pool) };
      rows.push(fields.map((f) => cell[f as keyof typeof cell]));
    }
  const stdout = propertyListing(fields, rows, o.flags.has('H'));
  return { code: errors ? 1 : 0, stdout, stderr: errors };
}

// ---- zpool status [-gLPpx] [pool]...
function status(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'cDegiLpPstvxT:');
  const { pools, errors } = selectPools(ctx.state, o.operands);
  // zpool_do_status: with no operands and no pools, "no pools available" on stderr, exit 0
  if (!o.operands.length && !pools.length) return { stderr: 'no pools available\n' };
  let shown = pools;
  if (o.flags.has('x')) {
    shown = pools.filter((p) => !isHealthy(p));
    if (!shown.length) {
      const msg = o.operands.length === 1 && pools.length === 1 ? `pool '${pools[0].name}' is healthy\n` : 'all pools are healthy\n';
      return { code: errors ? 1 : 0, stdout: errors && !pools.length ? '' : msg, stderr: errors };
    }
  }
  const opts = { guids: o.flags.has('g'), paths: o.flags.has('P'), parsable: o.flags.has('p') };
  const stdout = shown.map((p) => renderStatus(p, ctx.now, opts)).join('\n');
  return { code: errors ? 1 : 0, stdout, stderr: errors };
}

// ---- zpool replace [-f] pool device [new-device]
function replace(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'fso:');
  const [poolName, oldArg, newArg = oldArg] = o.operands;
  if (!poolName) return fail('missing pool name argument', 2);
  if (!oldArg) return fail('missing old device name', 2);
  if (o.operands.length > 3) return fail('too many arguments', 2);
  const host = ctx.state;
  const pool = host.pools.find((p) => p.name === poolName);
  if (!pool) return fail(noSuchPool(poolName));
  // a full path outside /dev that is a regular file is a file vdev (zpool_vdev.c make_leaf_vdev: S_ISREG)
  const asFile = newArg.startsWith('/') && !newArg.startsWith('/dev/');
  const newName = asFile ? newArg : devName(newArg);

  // zpool first builds the new vdev: the device must exist and must not belong to an active pool
  const disk = asFile ? isFile(host, newArg) : host.disks.some((d) => d.name === newName);
  const owner = deviceOwner(host, newName);
  // make_leaf_vdev: realpath(3) of a path that does not exist
  if (asFile && !disk) return fail(`cannot resolve path '${newArg}'`);
  if (!disk && !owner) return fail(`cannot open '${newArg}': no such device in /dev\nmust be a full path or shorthand device name`);
  if (owner?.exact)
    return fail(
      `invalid vdev specification\nuse '-f' to override the following errors:\n${asFile ? newName : `/dev/${newName}`} is part of active pool '${owner.pool.name}'`,
    );

  const cannot = `cannot replace ${oldArg} with ${newArg}`;
  const old = findLeaf(pool, oldArg);
  if (!old || old.section === 'cache') return fail(`${cannot}: no such device in pool`, LIBZFS_FAILED);
  // a disk whose partition is in use is held open by GEOM
  if (owner && !owner.exact) return fail(`${cannot}: ${newArg} is busy, or device removal is in progress`, LIBZFS_FAILED);
  if (old.parent?.type === 'replacing') return fail(`${cannot}: already in replacing/spare config; wait for completion or use 'zpool detach'`, LIBZFS_FAILED);
  const fresh: VNode = asFile
    ? { type: 'file', name: newName, sizeBytes: fileSize(host, newArg) ?? 0, guid: newGuid(), state: 'ONLINE', resilvering: true }
    : { type: 'disk', name: newName, guid: newGuid(), state: 'ONLINE', resilvering: true };
  if (leafSize(host, fresh) < leafSize(host, old.node)) return fail(`${cannot}: device is too small`, LIBZFS_FAILED);

  const replacing: VNode = { type: 'replacing', guid: newGuid(), children: [old.node, fresh] };
  const siblings = old.parent ? old.parent.children! : sectionVdevs(pool, old.section);
  siblings[old.index] = replacing;
  // a raidz member gets its share of the vdev's data; a mirror member or a lone disk all of it
  const share = old.parent?.type.startsWith('raidz') ? old.parent.children!.length : 1;
  startResilver(pool, ctx.now, ctx.settings.resilverMs, share);
  return { code: 0 };
}

// ---- zpool detach pool device
// libzfs zpool_vdev_detach: `cannot detach <dev>` + `no such device in pool` (EZFS_NODEVICE), `only applicable
// to mirror and replacing vdevs` (ENOTSUP), `no valid replicas` (EBUSY). Detaching the new side of a replacing
// vdev cancels the replacement: the old device stays, and the resilver is canceled.
function detach(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, '');
  const [poolName, devArg] = o.operands;
  if (!poolName) return fail('missing pool name argument', 2);
  if (!devArg) return fail('missing <device> specification', 2);
  if (o.operands.length > 2) return fail('too many arguments', 2);
  const pool = ctx.state.pools.find((p) => p.name === poolName);
  if (!pool) return fail(noSuchPool(poolName));
  const cannot = `cannot detach ${devArg}`;
  const loc = findLeaf(pool, devArg);
  if (!loc) return fail(`${cannot}: no such device in pool`, LIBZFS_FAILED);
  const parent = loc.parent;
  if (!parent || (parent.type !== 'mirror' && parent.type !== 'replacing'))
    return fail(`${cannot}: only applicable to mirror and replacing vdevs`, LIBZFS_FAILED);
  const healthy = parent.children!.filter((c, i) => i !== loc.index && (c.state ?? 'ONLINE') === 'ONLINE' && !c.resilvering);
  if (!healthy.length) return fail(`${cannot}: no valid replicas`, LIBZFS_FAILED);
  parent.children!.splice(loc.index, 1);
  if (parent.children!.length === 1) {
    // a mirror or replacing vdev of one device collapses to that device
    for (const l of walk(pool)) {
      if (l.node !== parent) continue;
      const list = l.parent ? l.parent.children! : sectionVdevs(pool, l.section);
      list[l.index] = parent.children![0];
      break;
    }
  }
  const replacing = [...walk(pool)].some((l) => l.node.type === 'replacing');
  if (pool.scan?.function === 'resilver' && pool.scan.state === 'scanning' && !replacing) pool.scan = { ...pool.scan, state: 'canceled', endMs: ctx.now };
  return { code: 0 };
}

/** (Re)starts the pool's resilver: it scans what the pool holds per data vdev and writes its share of it. */
function startResilver(pool: SimPool, now: number, durationMs: number, share: number): void {
  const totalBytes = Math.floor(pool.allocatedBytes / Math.max(1, pool.vdevs.length));
  pool.scan = {
    function: 'resilver',
    state: 'scanning',
    startMs: now,
    endMs: now + durationMs,
    totalBytes,
    processedBytes: Math.floor(totalBytes / share),
    errors: 0,
  };
}

/**
 * Finishes scans whose time is up. A finished resilver does not detach the replaced devices itself: OpenZFS's
 * `dsl_scan_done` (zfs-2.3.2 module/zfs/dsl_scan.c) only asks the pool's async thread to do it
 * (`spa_async_request(spa, SPA_ASYNC_RESILVER_DONE)`, "Let the async thread assess this and handle the detach"),
 * and `spa_vdev_resilver_done` (module/zfs/spa.c) detaches them a moment later. Until then `zpool status`
 * shows the scan as resilvered and the `replacing-N` vdev with both devices, neither marked "(resilvering)" —
 * as the real-OpenZFS guest showed. Here that moment is a fifth of the resilver's time, at most 1 s.
 */
registerTicker('zpool-scan', (host, now, settings) => {
  for (const pool of host.pools) {
    const scan = pool.scan;
    if (!scan) continue;
    if (scan.state === 'scanning' && now >= (scan.endMs ?? 0)) {
      if (scan.function === 'resilver') for (const v of walk(pool)) delete v.node.resilvering;
      pool.scan = { ...scan, state: 'finished', processedBytes: scan.function === 'resilver' ? (scan.processedBytes ?? 0) : 0 };
    }
    const done = pool.scan!;
    if (done.function === 'resilver' && done.state === 'finished' && now >= (done.endMs ?? 0) + detachLagMs(settings.resilverMs)) collapseReplacing(pool);
  }
});

const detachLagMs = (resilverMs: number) => Math.min(1000, Math.max(1, Math.round(resilverMs / 5)));

/** What `spa_vdev_resilver_done` does after a resilver: each replacing vdev collapses to its new device. */
function collapseReplacing(pool: SimPool): void {
  for (const section of ['data', 'logs'] as const) {
    const resolve = (list: VNode[]) => {
      for (const [i, v] of list.entries()) {
        if (v.type === 'replacing') list[i] = v.children![v.children!.length - 1];
        else if (v.children) resolve(v.children);
      }
    };
    resolve(sectionVdevs(pool, section));
  }
}

// ---- zpool iostat [-Hply] [pool]... [interval [count]]
interface IoSample {
  readOps: number;
  writeOps: number;
  readBytes: number;
  writeBytes: number;
  readWaitNs: number;
  writeWaitNs: number;
  readDiskWaitNs: number;
  writeDiskWaitNs: number;
}

/** The pool's workload at a moment: the seeded averages with a ±25% wobble of a 5-minute period. */
export function poolIo(pool: SimPool, atSeconds: number | null): IoSample {
  const io = pool.io ?? {};
  const f = atSeconds === null ? 1 : 1 + 0.25 * wobble(atSeconds, 300, phaseOf(pool.name));
  const lat = atSeconds === null ? 1 : 1 + 0.1 * wobble(atSeconds, 420, phaseOf(pool.name) + 1);
  return {
    readOps: (io.readOps ?? 0) * f,
    writeOps: (io.writeOps ?? 0) * f,
    readBytes: (io.readBytes ?? 0) * f,
    writeBytes: (io.writeBytes ?? 0) * f,
    readWaitNs: (io.readWaitNs ?? 0) * lat,
    writeWaitNs: (io.writeWaitNs ?? 0) * lat,
    readDiskWaitNs: (io.readDiskWaitNs ?? (io.readWaitNs ?? 0) * 0.7) * lat,
    writeDiskWaitNs: (io.writeDiskWaitNs ?? (io.writeWaitNs ?? 0) * 0.6) * lat,
  };
}

function iostat(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'HlpygLPv');
  const operands = [...o.operands];
  // trailing numbers are interval and count, as long as no pool has that name
  const numeric = (s: string | undefined) => s !== undefined && /^\d+(\.\d+)?$/.test(s) && !ctx.state.pools.some((p) => p.name === s);
  let interval: number | null = null;
  if (numeric(operands[operands.length - 1])) {
    const last = Number(operands.pop());
    if (numeric(operands[operands.length - 1])) interval = Number(operands.pop());
    else interval = last;
  }
  const { pools, errors } = selectPools(ctx.state, operands);
  // zpool_do_iostat: an operand that is neither a pool nor a vdev of one; no pools at all (without an interval)
  if (errors) return fail('Unable to parse pools/vdevs list.\n\n');
  if (!pools.length) return fail('no pools available\n');
  const parsable = o.flags.has('p');
  const latency = o.flags.has('l');
  // without an interval (or without -y) the report is the average since boot; with -y, the last interval's
  const sinceBoot = interval === null || !o.flags.has('y');
  const at = sinceBoot ? null : (ctx.now - (interval! * 1000) / 2) / 1000;
  const num = (n: number) => (parsable ? String(Math.round(n)) : nicenum(Math.round(n)));
  const time = (n: number, ops: number) => (ops < 0.5 || n <= 0 ? '-' : parsable ? rawTime(n) : nicenum(Math.round(n), 'time'));
  const rows = pools.map((p) => {
    // a pool without a workload still did the I/O of its creation, which only the since-import report counts
    const created = sinceBoot && !p.io && p.importIo ? p.importIo : null;
    if (created) return createdRow(p, created);
    const s = poolIo(p, at);
    const cells = [p.name, num(p.allocatedBytes), num(poolFree(ctx.state, p)), num(s.readOps), num(s.writeOps), num(s.readBytes), num(s.writeBytes)];
    if (latency)
      cells.push(
        time(s.readWaitNs, s.readOps),
        time(s.writeWaitNs, s.writeOps),
        time(s.readDiskWaitNs, s.readOps),
        time(s.writeDiskWaitNs, s.writeOps),
        // sync/async queue waits: the part of the total wait not spent on the disk, split evenly
        time((s.readWaitNs - s.readDiskWaitNs) / 2, s.readOps),
        time((s.writeWaitNs - s.writeDiskWaitNs) / 2, s.writeOps),
        time((s.readWaitNs - s.readDiskWaitNs) / 2, s.readOps),
        time((s.writeWaitNs - s.writeDiskWaitNs) / 2, s.writeOps),
        // scrub, trim and rebuild waits: nothing of that kind runs on a simulated pool
        '-',
        '-',
        '-',
      );
    return cells;
  });
  /**
   * zpool_main.c print_iostat_latency (zfs-2.3.2): each queue's average from its histogram, `-` for an empty one;
   * creation's reads are sync reads (vdev labels), so the async read queue is empty, its writes went through both
   */
  function createdRow(p: SimPool, io: NonNullable<SimPool['importIo']>): string[] {
    const n = (x: number | undefined) => num(x ?? 0);
    const t = (x: number | undefined) => (!x ? '-' : parsable ? rawTime(x) : nicenum(Math.round(x), 'time'));
    const cells = [p.name, num(p.allocatedBytes), num(poolFree(ctx.state, p)), n(io.readOps), n(io.writeOps), n(io.readBytes), n(io.writeBytes)];
    if (!latency) return cells;
    const rq = (io.readWaitNs ?? 0) - (io.readDiskWaitNs ?? 0);
    const wq = (io.writeWaitNs ?? 0) - (io.writeDiskWaitNs ?? 0);
    return [
      ...cells,
      t(io.readWaitNs),
      t(io.writeWaitNs),
      t(io.readDiskWaitNs),
      t(io.writeDiskWaitNs),
      t(rq || io.readWaitNs),
      t(wq / 2),
      '-',
      t(wq / 2),
      '-',
      '-',
      '-',
    ];
  }
  if (o.flags.has('H')) return { stdout: rows.map((r) => r.join('\t') + '\n').join('') };
  return { stdout: iostatTable(rows, latency) };
}

/** The column layout of `zpool iostat [-l]` (see test/fixtures/freebsd/zpool-iostat*.txt). */
function iostatTable(rows: string[][], latency: boolean): string {
  const nameWidth = Math.max(10, ...rows.map((r) => r[0].length));
  const groups = latency
    ? ['capacity', 'operations', 'bandwidth', 'total_wait', 'disk_wait', 'syncq_wait', 'asyncq_wait', 'scrub', 'trim', 'rebuild']
    : ['capacity', 'operations', 'bandwidth'];
  const labels = latency
    ? ['alloc', 'free', 'read', 'write', 'read', 'write', 'read', 'write', 'read', 'write', 'read', 'write', 'read', 'write', 'wait', 'wait', 'wait']
    : ['alloc', 'free', 'read', 'write', 'read', 'write'];
  const span = (g: string) => (['scrub', 'trim', 'rebuild'].includes(g) ? 1 : 2);
  // each label centred over its columns (the extra space to the left), as in the sample's header
  let top = '';
  let pos = nameWidth;
  for (const g of groups) {
    const w = span(g) * 7 - 2;
    top = top.padEnd(pos + 2 + Math.max(0, Math.ceil((w - g.length) / 2))) + g;
    pos += 2 + w;
  }
  const line2 = 'pool'.padEnd(nameWidth) + labels.map((l) => '  ' + l.padStart(5)).join('');
  const dashes = '-'.repeat(nameWidth) + labels.map(() => '  -----').join('');
  const body = rows
    .map(
      (r) =>
        r[0].padEnd(nameWidth) +
        r
          .slice(1)
          .map((c) => '  ' + c.padStart(5))
          .join(''),
    )
    .join('\n');
  return `${top.trimEnd()}\n${line2}\n${dashes}\n${body}\n${dashes}\n`;
}

const USAGE = {
  list: '\tlist [-gHLpPv] [-o property[,...]] [-T d|u] [pool] ... [interval [count]]',
  get: '\tget [-Hp] [-o "all" | field[,...]] <"all" | property[,...]> <pool> ...',
  status: '\tstatus [-c [script1,script2,...]] [-DegiLpPstvx] [-T d|u] [pool] ... [interval [count]]',
  replace: '\treplace [-fsw] [-o property=value] <pool> <device> [new-device]',
  detach: '\tdetach <pool> <device>',
  iostat: '\tiostat [[[-c [script1,script2,...][-lq]]|[-rw]] [-T d | u] [-ghHLpPvy]\n\t    [[pool ...]|[pool vdev ...]|[vdev ...]] [[-n] interval [count]]',
};

registerSubcommand('zpool', 'list', withUsage(list, USAGE.list));
registerSubcommand('zpool', 'get', withUsage(get, USAGE.get));
registerSubcommand('zpool', 'status', withUsage(status, USAGE.status));
registerSubcommand('zpool', 'replace', withUsage(replace, USAGE.replace));
registerSubcommand('zpool', 'detach', withUsage(detach, USAGE.detach));
registerSubcommand('zpool', 'iostat', withUsage(iostat, USAGE.iostat));
