import { CommandError, runChecked, type Executor } from '../../executors/executor.ts';
import { parseLatency, parseNumber, parseSize } from './numbers.ts';

/**
 * zpool(8): list, get, status (vdev tree + scan/resilver progress), replace, iostat. Parsers are pure and
 * read both the -H/-p forms the agent asks for and the human forms found in real samples.
 */

// ---------------------------------------------------------------- zpool list

/** `zpool list -Hp` without -o (OpenZFS 2.x). */
export const ZPOOL_LIST_DEFAULT_COLUMNS = [
  'name',
  'size',
  'allocated',
  'free',
  'checkpoint',
  'expandsize',
  'fragmentation',
  'capacity',
  'dedupratio',
  'health',
  'altroot',
];
/** What the agent asks for. */
const POOL_LIST_COLUMNS = ['name', 'guid', 'size', 'allocated', 'free', 'fragmentation', 'capacity', 'dedupratio', 'health'];

const LIST_ALIASES: Record<string, string> = {
  alloc: 'allocated',
  frag: 'fragmentation',
  cap: 'capacity',
  dedup: 'dedupratio',
  ckpoint: 'checkpoint',
  expandsz: 'expandsize',
};

interface PoolListRow {
  name: string;
  guid?: string;
  health?: string;
  size?: number | null;
  allocated?: number | null;
  free?: number | null;
  /** percent; null where zpool prints `-` (e.g. an UNAVAIL pool) */
  fragmentation?: number | null;
  capacity?: number | null;
  dedupRatio?: number | null;
}

/** Rows of `zpool list -H[p] [-o columns]` (TAB-separated). */
export function parseZpoolList(stdout: string, columns: string[] = ZPOOL_LIST_DEFAULT_COLUMNS): PoolListRow[] {
  const cols = columns.map((c) => LIST_ALIASES[c] ?? c);
  return stdout
    .split('\n')
    .filter((l) => l.includes('\t'))
    .map((line) => {
      const cells = line.split('\t');
      const v = (c: string) => {
        const i = cols.indexOf(c);
        return i >= 0 ? cells[i] : undefined;
      };
      const row: PoolListRow = { name: v('name') ?? cells[0] };
      const num = (c: string, parse: (s: string) => number | null) => (v(c) === undefined ? undefined : parse(v(c)!));
      if (v('guid') !== undefined) row.guid = v('guid');
      if (v('health') !== undefined) row.health = v('health');
      if (v('size') !== undefined) row.size = num('size', parseSize);
      if (v('allocated') !== undefined) row.allocated = num('allocated', parseSize);
      if (v('free') !== undefined) row.free = num('free', parseSize);
      if (v('fragmentation') !== undefined) row.fragmentation = num('fragmentation', parseNumber);
      if (v('capacity') !== undefined) row.capacity = num('capacity', parseNumber);
      if (v('dedupratio') !== undefined) row.dedupRatio = num('dedupratio', parseNumber);
      return row;
    });
}

type PoolListFull = Required<PoolListRow>;

/** Every imported pool with its GUID, sizes and health. */
export async function listPools(exec: Executor): Promise<PoolListFull[]> {
  const argv = ['zpool', 'list', '-Hp', '-o', POOL_LIST_COLUMNS.join(',')];
  const res = await exec.run(argv);
  // "no pools available" is not a failure
  if (res.code !== 0 && !/no pools available/.test(res.stdout + res.stderr)) throw new CommandError(argv, res);
  return parseZpoolList(res.stdout, POOL_LIST_COLUMNS) as PoolListFull[];
}

/** What inventory and telemetry both report of a listed pool; sizes zpool prints as `-` count as 0. */
export const poolSummary = (p: PoolListFull) => ({
  name: p.name,
  guid: p.guid,
  health: p.health,
  size: p.size ?? 0,
  allocated: p.allocated ?? 0,
  free: p.free ?? 0,
});

/** `zpool get -H -o value guid <pool>`. */
export async function poolGuid(exec: Executor, pool: string): Promise<string> {
  return (await runChecked(exec, ['zpool', 'get', '-H', '-o', 'value', 'guid', pool])).trim();
}

// ---------------------------------------------------------------- zpool status

export interface StatusVdev {
  /** as printed: device name, `mirror-0`, `replacing-1`, or a GUID for a missing device (or with -g) */
  name: string;
  state: string;
  read: number | null;
  write: number | null;
  cksum: number | null;
  /** what follows the counters: `(resilvering)`, `was /dev/ada1p3`, `too many errors` */
  note?: string;
  children: StatusVdev[];
}

interface ScanStatus {
  function: 'scrub' | 'resilver' | null;
  state: 'none' | 'in_progress' | 'paused' | 'finished' | 'canceled';
  /** in progress: the `NN.NN% done` figure; finished: 100 */
  percentDone: number | null;
  /** in progress: `since …`; finished/canceled: `on …` (ctime text as printed) */
  at?: string;
  /** finished: errors found */
  errors?: number;
  /** finished: `resilvered 781M` / `repaired 0B` amount; in progress: resilvered/repaired so far */
  processed?: string;
  /** in progress: `01:25:12` / `4 days 02:06:31`; null when zpool gives no estimate */
  toGo?: string | null;
  /** the scan text, continuation lines joined with newlines */
  text: string;
}

export interface ZpoolStatus {
  pool: string;
  state: string;
  status?: string;
  action?: string;
  see?: string;
  scan: ScanStatus;
  /** the pool's own row, with the data vdevs as children */
  root: StatusVdev;
  /** logs, cache, spares, special, dedup sections (each a list of vdevs) */
  sections: Record<string, StatusVdev[]>;
  errors?: string;
}

const SECTION_NAMES = new Set(['logs', 'cache', 'spares', 'special', 'dedup']);

function parseScan(text: string | undefined, key: string): ScanStatus {
  if (text === undefined || /^none requested/.test(text)) return { function: null, state: 'none', percentDone: null, text: text ?? '' };
  const first = text.split('\n')[0];
  const fn = (/^(scrub|resilver)/.exec(first)?.[1] ?? (key === 'scrub' ? 'scrub' : null)) as ScanStatus['function'];
  const percent = /([\d.]+)% done/.exec(text);
  let m: RegExpExecArray | null;
  if ((m = /^(?:scrub|resilver) in progress since (.+)$/.exec(first))) {
    const toGo = /done, (.+?) to go/.exec(text);
    const processed = /(\S+) (?:resilvered|repaired), [\d.]+% done/.exec(text);
    return {
      function: fn,
      state: 'in_progress',
      percentDone: percent ? Number(percent[1]) : null,
      at: m[1],
      processed: processed?.[1],
      toGo: toGo ? toGo[1] : null,
      text,
    };
  }
  if ((m = /^(?:scrub|resilver) paused since (.+)$/.exec(first)))
    return { function: fn, state: 'paused', percentDone: percent ? Number(percent[1]) : null, at: m[1], text };
  if ((m = /^(?:resilvered|scrub repaired) (\S+) in .+? with (\d+) errors on (.+)$/.exec(first)))
    return { function: fn, state: 'finished', percentDone: 100, processed: m[1], errors: Number(m[2]), at: m[3], text };
  if ((m = /^(?:scrub|resilver) canceled on (.+)$/.exec(first))) return { function: fn, state: 'canceled', percentDone: null, at: m[1], text };
  return { function: fn, state: 'none', percentDone: null, text };
}

/** The config table: rows indented like the NAME header plus two spaces per level. */
function parseConfig(lines: string[]): { root: StatusVdev; sections: Record<string, StatusVdev[]> } | null {
  const headerAt = lines.findIndex((l) => /^\s*NAME\s+STATE\s+READ\s+WRITE\s+CKSUM/.test(l));
  if (headerAt < 0) return null;
  const base = /^(\s*)/.exec(lines[headerAt])![1];
  const sections: Record<string, StatusVdev[]> = {};
  let root: StatusVdev | null = null;
  // stack[d] = the last vdev seen at depth d; a section header takes depth 0 like the pool row
  let stack: StatusVdev[] = [];
  let currentList: StatusVdev[] | null = null;
  const count = (s: string | undefined) => (s === undefined ? null : parseSize(s));
  for (const raw of lines.slice(headerAt + 1)) {
    if (!raw.trim()) continue;
    const rest = raw.startsWith(base) ? raw.slice(base.length) : raw.replace(/^\s+/, '');
    const indent = /^( *)/.exec(rest)![1].length;
    const depth = Math.floor(indent / 2);
    const m = /^(\S+)(?:\s+(\S+))?(?:\s+(.*?))?\s*$/.exec(rest.slice(indent));
    if (!m) continue;
    const [, name, state] = m;
    // READ WRITE CKSUM, then a note; spares print no counters, only a note
    const counts = /^(\d+(?:\.\d+)?[KMGTPE]?)\s+(\d+(?:\.\d+)?[KMGTPE]?)\s+(\d+(?:\.\d+)?[KMGTPE]?)(?:\s+(.*))?$/.exec(m[3] ?? '');
    const [read, write, cksum] = counts ? [counts[1], counts[2], counts[3]] : [];
    const note = counts ? counts[4] : m[3];
    if (depth === 0 && !state && SECTION_NAMES.has(name)) {
      currentList = sections[name] = [];
      stack = [];
      continue;
    }
    const vdev: StatusVdev = { name, state: state ?? '', read: count(read), write: count(write), cksum: count(cksum), children: [] };
    if (note) vdev.note = note;
    if (depth === 0 && !root) {
      root = vdev;
      stack = [vdev];
      currentList = null;
      continue;
    }
    if (currentList && depth === 1) {
      currentList.push(vdev);
      stack = [stack[0], vdev];
      continue;
    }
    const parent = stack[depth - 1];
    if (!parent) throw new Error(`zpool status: unexpected indentation at "${raw}"`);
    parent.children.push(vdev);
    stack = [...stack.slice(0, depth), vdev];
  }
  if (!root) throw new Error('zpool status: no pool row');
  return { root, sections };
}

/** `zpool status [pool…]` output: one entry per pool. */
export function parseZpoolStatus(stdout: string): ZpoolStatus[] {
  const blocks: string[][] = [];
  for (const line of stdout.split('\n')) {
    if (/^ {0,3}pool: /.test(line)) blocks.push([]);
    blocks[blocks.length - 1]?.push(line);
  }
  return blocks.map((lines) => {
    const fields: Record<string, string[]> = {};
    const config: string[] = [];
    let key = '';
    for (const line of lines) {
      const m = /^ {0,3}([a-z]+):(?: (.*))?$/.exec(line);
      if (m) {
        key = m[1];
        fields[key] = m[2] === undefined ? [] : [m[2]];
        continue;
      }
      if (key === 'config') config.push(line);
      else if (key && line.trim()) fields[key].push(line.trim());
    }
    const joined = (k: string, sep: string) => (fields[k] ? fields[k].join(sep) : undefined);
    const scanKey = fields.scan ? 'scan' : 'scrub';
    const status: ZpoolStatus = {
      pool: joined('pool', ' ')!,
      state: joined('state', ' ') ?? '',
      scan: parseScan(joined(scanKey, '\n'), scanKey),
      // a sample cut before its config table still tells state and scan
      ...(parseConfig(config) ?? {
        root: { name: joined('pool', ' ')!, state: joined('state', ' ') ?? '', read: null, write: null, cksum: null, children: [] },
        sections: {},
      }),
    };
    if (fields.status) status.status = joined('status', ' ');
    if (fields.action) status.action = joined('action', ' ');
    if (fields.see) status.see = joined('see', ' ');
    if (fields.errors) status.errors = joined('errors', ' ');
    return status;
  });
}

export async function poolStatus(exec: Executor, pool: string, opts: { guids?: boolean } = {}): Promise<ZpoolStatus> {
  const out = await runChecked(exec, ['zpool', 'status', ...(opts.guids ? ['-g'] : []), pool]);
  const [status] = parseZpoolStatus(out);
  if (!status) throw new Error(`zpool status ${pool}: no pool in the output`);
  return status;
}

/** Every vdev of the tree, depth first (the root included). */
export function* vdevs(v: StatusVdev): Generator<StatusVdev> {
  yield v;
  for (const c of v.children) yield* vdevs(c);
}

/** Every vdev of a pool: the root's tree and the sections' (logs, cache, spares…). */
const allVdevs = (s: ZpoolStatus): StatusVdev[] => [s.root, ...Object.values(s.sections).flat()].flatMap((r) => [...vdevs(r)]);

/** The devices of a pool: vdevs without children (the pool's root aside). */
export const leafVdevs = (s: ZpoolStatus): StatusVdev[] => allVdevs(s).filter((v) => v !== s.root && !v.children.length);

interface ResilverProgress {
  /** a resilver is running */
  running: boolean;
  /** 0–100 while running, 100 when finished, null when unknown */
  percent: number | null;
  /** some vdev is still `replacing-N` */
  replacing: boolean;
  /** the last resilver finished (and nothing is being replaced any more) */
  done: boolean;
  /** errors the finished resilver reported */
  errors: number | null;
}

/** Where a device replacement stands, from `zpool status`. */
export function resilverProgress(status: ZpoolStatus): ResilverProgress {
  const replacing = allVdevs(status).some((v) => /^replacing-\d+$/.test(v.name));
  const scan = status.scan;
  const running = scan.function === 'resilver' && scan.state === 'in_progress';
  const finished = scan.function === 'resilver' && scan.state === 'finished';
  return {
    running,
    // a finished resilver is 100 % done even while OpenZFS has yet to detach the replaced device (it does so
    // from its async thread a moment later: `done` waits for that)
    percent: running ? scan.percentDone : finished ? 100 : null,
    replacing,
    done: finished && !replacing,
    errors: finished ? (scan.errors ?? null) : null,
  };
}

// ---------------------------------------------------------------- zpool replace

/** `zpool replace <pool> <old> <new>`; throws CommandError with zpool's own message. */
export async function replaceDevice(exec: Executor, pool: string, oldDevice: string, newDevice: string): Promise<void> {
  await runChecked(exec, ['zpool', 'replace', pool, oldDevice, newDevice]);
}

/** `zpool detach <pool> <device>` (e.g. the new side of a replacing vdev: the replacement is called off); zpool's own message on failure. */
export async function detachDevice(exec: Executor, pool: string, device: string): Promise<void> {
  await runChecked(exec, ['zpool', 'detach', pool, device]);
}

// ---------------------------------------------------------------- zpool iostat

interface PoolIostat {
  name: string;
  allocated: number | null;
  free: number | null;
  readOps: number;
  writeOps: number;
  readBytes: number;
  writeBytes: number;
  /** -l columns, nanoseconds (null where zpool prints `-`: no I/O of that kind) */
  totalWaitRead?: number | null;
  totalWaitWrite?: number | null;
  diskWaitRead?: number | null;
  diskWaitWrite?: number | null;
  syncqWaitRead?: number | null;
  syncqWaitWrite?: number | null;
  asyncqWaitRead?: number | null;
  asyncqWaitWrite?: number | null;
  scrubWait?: number | null;
  /** OpenZFS ≥ 2.0 */
  trimWait?: number | null;
  /** OpenZFS ≥ 2.1 */
  rebuildWait?: number | null;
}

const LATENCY_FIELDS = [
  'totalWaitRead',
  'totalWaitWrite',
  'diskWaitRead',
  'diskWaitWrite',
  'syncqWaitRead',
  'syncqWaitWrite',
  'asyncqWaitRead',
  'asyncqWaitWrite',
  'scrubWait',
  'trimWait',
  'rebuildWait',
] as const;

/**
 * Pool rows of `zpool iostat [-Hp] [-l]`: with -H TAB-separated, otherwise the column table (header and
 * dash lines skipped). Columns: name, alloc, free, read/write ops, read/write bandwidth, then with -l the
 * total/disk/syncq/asyncq waits (read, write) and the scrub, trim, rebuild waits (as many as printed).
 */
export function parseZpoolIostat(stdout: string): PoolIostat[] {
  const rows: PoolIostat[] = [];
  for (const line of stdout.split('\n')) {
    if (!line.trim() || /^\s/.test(line) || /^-+(\s|$)/.test(line) || /^pool\s/.test(line)) continue;
    const cells = line.includes('\t') ? line.split('\t') : line.trim().split(/\s+/);
    if (cells.length < 7) continue;
    const n = (s: string) => parseSize(s) ?? 0;
    const row: PoolIostat = {
      name: cells[0],
      allocated: parseSize(cells[1]),
      free: parseSize(cells[2]),
      readOps: n(cells[3]),
      writeOps: n(cells[4]),
      readBytes: n(cells[5]),
      writeBytes: n(cells[6]),
    };
    LATENCY_FIELDS.forEach((f, i) => {
      const c = cells[7 + i];
      if (c !== undefined) row[f] = parseLatency(c);
    });
    rows.push(row);
  }
  return rows;
}

/**
 * `zpool iostat -Hpl`: without a window, averages since boot; with `windowSeconds`, the averages over a
 * fresh interval of that length (`-y <window> 1`, which takes that long on a real host).
 */
export async function poolIostat(exec: Executor, opts: { pools?: string[]; windowSeconds?: number } = {}): Promise<PoolIostat[]> {
  const argv = ['zpool', 'iostat', '-Hpl'];
  if (opts.windowSeconds) argv.push('-y');
  argv.push(...(opts.pools ?? []));
  if (opts.windowSeconds) argv.push(String(opts.windowSeconds), '1');
  return parseZpoolIostat(await runChecked(exec, argv));
}
