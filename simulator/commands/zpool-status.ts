import type { SimPool } from '#shared/seed/host/schema';
import { ctime, dhms, nicenum } from '../format.ts';
import { displayName, isLeaf, nodeState, poolState, walk, type Located, type VNode } from '../pool-model.ts';

/**
 * `zpool status` text as OpenZFS 2.2 prints it on FreeBSD 14: TAB-indented config, the NAME column as wide
 * as its longest entry (at least 10), `replacing-N` during a replace, the 2.2 two-line scan progress and the
 * problem/status messages libzfs picks in the same order as zpool_get_status().
 */
export interface StatusOptions {
  /** -g: GUIDs instead of device names */
  guids?: boolean;
  /** -P: full device paths */
  paths?: boolean;
  /** -p: exact error counts */
  parsable?: boolean;
}

/** Leaves outside a replacing vdev (problems inside one are being repaired, so zpool does not call them out). */
function problemLeaves(pool: SimPool): VNode[] {
  return [...walk(pool)].filter((l) => isLeaf(l.node) && l.parent?.type !== 'replacing').map((l) => l.node);
}

type Reason = { status: string; action: string; see?: string } | null;

const MSG = 'https://openzfs.github.io/openzfs-docs/msg';

export function statusReason(pool: SimPool): Reason {
  const leaves = problemLeaves(pool);
  const has = (pred: (v: VNode) => boolean) => leaves.some(pred);
  if (has((v) => v.state === 'FAULTED'))
    return {
      status:
        'One or more devices are faulted in response to persistent errors.\n\tSufficient replicas exist for the pool to continue functioning in a\n\tdegraded state.',
      action: "Replace the faulted device, or use 'zpool clear' to mark the device\n\trepaired.",
    };
  if (has((v) => v.state === 'UNAVAIL' || v.state === 'REMOVED'))
    return {
      status: 'One or more devices could not be opened.  Sufficient replicas exist for\n\tthe pool to continue functioning in a degraded state.',
      action: "Attach the missing device and online it using 'zpool online'.",
      see: `${MSG}/ZFS-8000-2Q`,
    };
  if (has((v) => Boolean(v.errors && ((v.errors.read ?? 0) || (v.errors.write ?? 0) || (v.errors.cksum ?? 0)))))
    return {
      status: 'One or more devices has experienced an unrecoverable error.  An\n\tattempt was made to correct the error.  Applications are unaffected.',
      action: "Determine if the device needs to be replaced, and clear the errors\n\tusing 'zpool clear' or replace the device with 'zpool replace'.",
      see: `${MSG}/ZFS-8000-9P`,
    };
  if (has((v) => v.state === 'OFFLINE'))
    return {
      status:
        'One or more devices has been taken offline by the administrator.\n\tSufficient replicas exist for the pool to continue functioning in a\n\tdegraded state.',
      action: "Online the device using 'zpool online' or replace the device with\n\t'zpool replace'.",
    };
  if (pool.scan?.function === 'resilver' && pool.scan.state === 'scanning')
    return {
      status: 'One or more devices is currently being resilvered.  The pool will\n\tcontinue to function, possibly in a degraded state.',
      action: 'Wait for the resilver to complete.',
    };
  return null;
}

export function isHealthy(pool: SimPool): boolean {
  return poolState(pool) === 'ONLINE' && statusReason(pool) === null;
}

/** Progress of a running scan at `now`: issued bytes grow linearly from start to the planned end. */
export function scanProgress(
  pool: SimPool,
  now: number,
): { fraction: number; issued: number; scanned: number; total: number; elapsedS: number; leftS: number } {
  const scan = pool.scan!;
  const total = scan.totalBytes ?? pool.allocatedBytes;
  const span = Math.max(1, (scan.endMs ?? scan.startMs) - scan.startMs);
  const fraction = Math.min(1, Math.max(0, (now - scan.startMs) / span));
  const issued = Math.floor(total * fraction);
  // the scan (metadata walk) runs ahead of the issued I/O, as on a real pool
  const scanned = Math.min(total, Math.floor(total * Math.min(1, fraction * 1.6)));
  const elapsedS = Math.max(1, (now - scan.startMs) / 1000);
  return { fraction, issued, scanned, total, elapsedS, leftS: Math.max(0, ((scan.endMs ?? now) - now) / 1000) };
}

function scanLines(pool: SimPool, now: number): string {
  const scan = pool.scan;
  if (!scan) return '';
  const what = scan.function;
  if (scan.state === 'canceled') return `  scan: ${what} canceled on ${ctime(scan.endMs ?? scan.startMs)}\n`;
  if (scan.state === 'finished') {
    const secs = ((scan.endMs ?? scan.startMs) - scan.startMs) / 1000;
    const done = what === 'resilver' ? 'resilvered' : 'scrub repaired';
    return `  scan: ${done} ${nicenum(scan.processedBytes ?? 0, 'bytes')} in ${dhms(secs)} with ${scan.errors ?? 0} errors on ${ctime(scan.endMs ?? scan.startMs)}\n`;
  }
  const p = scanProgress(pool, now);
  const nb = (n: number) => nicenum(n, 'bytes');
  const scanRate = p.scanned / p.elapsedS;
  const issueRate = p.issued / p.elapsedS;
  const scannedPart = p.scanned < p.total ? `${nb(p.scanned)} / ${nb(p.total)} scanned at ${nb(scanRate)}/s` : `${nb(p.scanned)} / ${nb(p.total)} scanned`;
  const processed = what === 'resilver' ? `${nb(Math.floor((scan.processedBytes ?? p.total) * p.fraction))} resilvered` : `${nb(0)} repaired`;
  const eta = issueRate >= 10 * 1024 * 1024 ? `, ${dhms(p.leftS)} to go` : ', no estimated completion time';
  return (
    `  scan: ${what} in progress since ${ctime(scan.startMs)}\n` +
    `\t${scannedPart}, ${nb(p.issued)} / ${nb(p.total)} issued at ${nb(issueRate)}/s\n` +
    `\t${processed}, ${(p.fraction * 100).toFixed(2)}% done${eta}\n`
  );
}

interface Row {
  depth: number;
  name: string;
  state: string;
  counts: [string, string, string];
  note: string;
}

function rowFor(pool: SimPool, loc: Located, opts: StatusOptions): Row {
  const { node } = loc;
  const state = nodeState(node);
  const count = (n: number | undefined) => (opts.parsable ? String(n ?? 0) : nicenum(n ?? 0));
  let name = displayName(pool, loc);
  let note = '';
  if (isLeaf(node)) {
    const missing = state === 'UNAVAIL' || state === 'REMOVED';
    if (opts.guids || (missing && !opts.paths)) name = node.guid ?? name;
    else if (opts.paths && node.type === 'disk') name = `/dev/${node.name}`;
    if (missing) note = `  was /dev/${node.name}`;
    else if (state === 'FAULTED' && node.errors) note = '  too many errors';
    if (node.resilvering) note = '  (resilvering)';
  } else if (opts.guids) name = node.guid ?? name;
  const e = node.errors ?? {};
  return { depth: loc.depth + 1, name, state, counts: [count(e.read), count(e.write), count(e.cksum)], note };
}

function configLines(pool: SimPool, opts: StatusOptions): string {
  const locs = [...walk(pool)];
  // print_status_config names the root vdev by the pool's name, -g or not (zpool_do_status)
  const root: Row = { depth: 0, name: pool.name, state: poolState(pool), counts: ['0', '0', '0'], note: '' };
  const sections = { data: [] as Row[], logs: [] as Row[], cache: [] as Row[] };
  for (const loc of locs) sections[loc.section].push(rowFor(pool, loc, opts));
  const all = [root, ...sections.data, ...sections.logs, ...sections.cache];
  const width = Math.max(10, ...all.map((r) => r.depth * 2 + r.name.length));
  const line = (r: Row) =>
    `\t${' '.repeat(r.depth * 2)}${r.name.padEnd(width - r.depth * 2)}  ${r.state.padEnd(8)} ${r.counts.map((c) => c.padStart(5)).join(' ')}${r.note}\n`;
  let out = `\t${'NAME'.padEnd(width)}  ${'STATE'.padEnd(8)} ${'READ'.padStart(5)} ${'WRITE'.padStart(5)} ${'CKSUM'.padStart(5)}\n`;
  out += line(root) + sections.data.map(line).join('');
  if (sections.logs.length) out += '\tlogs\n' + sections.logs.map(line).join('');
  // cache devices carry no error counters in zpool status's layout beyond the usual columns
  if (sections.cache.length) out += '\tcache\n' + sections.cache.map(line).join('');
  return out;
}

export function renderStatus(pool: SimPool, now: number, opts: StatusOptions = {}): string {
  const reason = statusReason(pool);
  let out = `  pool: ${pool.name}\n state: ${poolState(pool)}\n`;
  if (reason) {
    out += `status: ${reason.status}\naction: ${reason.action}\n`;
    if (reason.see) out += `   see: ${reason.see}\n`;
  }
  out += scanLines(pool, now);
  out += `config:\n\n${configLines(pool, opts)}\nerrors: No known data errors\n`;
  return out;
}
