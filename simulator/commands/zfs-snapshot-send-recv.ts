import { setting } from '#shared/config/read';
import type { SimDataset, SimHost } from '#shared/seed/host/schema';
import { getopt, nicenum, UsageError } from '../format.ts';
import { fail, registerSubcommand, withUsage, type CommandContext, type CommandOutput } from '../registry.ts';
import { descendants, findDataset, isMounted, parentOf, poolOf } from '../dataset-model.ts';
import { newGuid } from '../pool-model.ts';
import type { SimFile } from '../file-tree.ts';
import { contentOf, mountpointOf, remount, setContent, snapDir } from './zfs-mounts.ts';
import { SIM_KEY_PROPERTY } from './zfs-load-key.ts';
import { applyReceivedProps, parseRecvProps, rawStreamRefusal } from './zfs-recv-props.ts';

/**
 * zfs snapshot / send / recv / destroy of OpenZFS 2.2, for replication (E20 jail migration).
 *
 * A simulated send stream is text: a header line with the datasets, their snapshots and the files under the
 * root dataset's mountpoint (a jail's tree), a payload sized like the data (capped by HM_SIM_SEND_MAX_BYTES,
 * default 256 KiB), and a trailer with the payload's length. `zfs recv` refuses a stream whose trailer is
 * missing or wrong, in zfs's words, and changes nothing — as a real receive of a cut-off stream does.
 * A snapshot keeps the files its filesystem held when it was taken, where ZFS shows them:
 * `<mountpoint>/.zfs/snapshot/<name>/` (kept with the dataset while it is not mounted); a stream carries the files
 * of each snapshot it carries (one rule for both, streamSnapshots), so a receive restores what the snapshot held,
 * not what the sender holds now.
 * Dry runs (`-nP`, `-nvP`) print the lines of the samples in test/fixtures/freebsd (zfs-send-nvP-*.txt);
 * `-v` prints the estimate lines of zfs-send-v-*.txt on stderr.
 */
const MAGIC = 'HMSIM-ZFS-STREAM v1 ';
const TRAILER = 'HMSIM-ZFS-END ';

interface StreamDataset {
  /** '' for the root of the stream, '/child' for descendants */
  rel: string;
  type: SimDataset['type'];
  usedBytes: number;
  referencedBytes?: number;
  mountpoint?: string;
  properties?: Record<string, string>;
  snapshots: { name: string; guid: string; usedBytes: number; referencedBytes?: number; creation?: number }[];
}

interface StreamHeader {
  kind: 'full' | 'incremental';
  /** the sent snapshot's name (after @) and, incremental, the one it starts from */
  snapshot: string;
  from?: string;
  /** the sent dataset's name on the sending host (what `zfs recv -v` names) */
  source?: string;
  datasets: StreamDataset[];
  files: Record<string, SimFile>;
  /** the files of each snapshot the stream carries, by snapshot name (absent in streams of older states) */
  snapshotFiles?: Record<string, Record<string, SimFile>>;
  /** sent with -w: encrypted blocks as they are on disk */
  raw?: boolean;
  /** sent with -R: a replication package (its receive is zfs_receive_package's) */
  replicate?: boolean;
}

/** Files of a filesystem's content without its snapshots' directories. */
const live = (content: Record<string, SimFile>) => Object.fromEntries(Object.entries(content).filter(([rel]) => !rel.startsWith('.zfs/')));
/** The files under `prefix` of a content, relative to it. */
const filesUnder = (content: Record<string, SimFile>, prefix: string) =>
  Object.fromEntries(Object.entries(content).flatMap(([rel, f]) => (rel.startsWith(prefix) ? [[rel.slice(prefix.length), f]] : [])));
/** Files placed under `prefix` (a snapshot's directory). */
const under = (prefix: string, files: Record<string, SimFile>) => Object.fromEntries(Object.entries(files).map(([rel, f]) => [`${prefix}${rel}`, f]));
/** What a snapshot holds: its recorded files, else (a snapshot of an empty tree, or of an older state) the live ones. */
function snapshotContent(content: Record<string, SimFile>, snap: string): Record<string, SimFile> {
  const recorded = filesUnder(content, snapDir(snap));
  return Object.keys(recorded).length ? recorded : live(content);
}

const notExist = (name: string) => fail(`cannot open '${name}': dataset does not exist`);
const maxPayload = () => setting('HM_SIM_SEND_MAX_BYTES');

const snapshotsOf = (state: SimHost, fs: string) => state.datasets.filter((d) => d.type === 'snapshot' && d.name.startsWith(`${fs}@`));

/**
 * zfs_main.c zfs_do_snapshot (zfs-2.3.2; the same in 2.2.7): an operand without `@`, or whose dataset does not
 * open, is the usage (exit 2, after zfs_open's `cannot open`); the snapshots of every operand (with -r each
 * descendant's) are taken at once by lzc_snapshot or none is. libzfs_dataset.c zfs_snapshot_nvl prints
 * `cannot create snapshot 'x': dataset already exists` for each one taken already, and zfs_do_snapshot adds
 * `no snapshots were created` when it asked for more than one (-r or several operands).
 */
function snapshot(ctx: CommandContext): CommandOutput {
  const o = getopt(ctx.args, 'ro:');
  if (!o.operands.length) throw new UsageError('missing snapshot argument');
  const multiple = o.flags.has('r') || o.operands.length > 1;
  const wanted: { d: SimDataset; snap: string }[] = [];
  for (const target of o.operands) {
    const at = target.indexOf('@');
    if (at < 0) throw new UsageError('');
    const [fs, snap] = [target.slice(0, at), target.slice(at + 1)];
    const root = findDataset(ctx.state, fs);
    if (!root || root.type === 'snapshot') throw new UsageError(`cannot open '${fs}': dataset does not exist`);
    for (const d of o.flags.has('r') ? descendants(ctx.state, fs) : [root]) if (!wanted.some((w) => w.d === d && w.snap === snap)) wanted.push({ d, snap });
  }
  const taken = wanted.filter((w) => findDataset(ctx.state, `${w.d.name}@${w.snap}`));
  if (taken.length) {
    const lines = taken.map((w) => `cannot create snapshot '${w.d.name}@${w.snap}': dataset already exists`);
    return fail([...lines, ...(multiple ? ['no snapshots were created'] : [])].join('\n'));
  }
  for (const { d, snap } of wanted) {
    ctx.state.datasets.push({
      name: `${d.name}@${snap}`,
      type: 'snapshot',
      guid: newGuid(),
      usedBytes: 0,
      referencedBytes: d.referencedBytes ?? d.usedBytes,
      creation: Math.floor(ctx.now / 1000),
      ...(d.type === 'volume' ? { volsizeBytes: d.volsizeBytes ?? 0 } : {}),
    });
    const content = contentOf(ctx.state, d);
    if (d.type === 'filesystem') setContent(ctx.state, d, { ...content, ...under(snapDir(snap), live(content)) });
  }
  return {};
}

/**
 * The snapshots a stream carries, as zfs sends them: `-i @a` only the sent one; `-I @a` every one after `a` up to
 * the sent one; a full `-R` every one up to the sent one; a full send without `-R` only the sent one.
 */
function streamSnapshots(all: SimDataset[], snap: string, from: string | undefined, replicate: boolean, intermediary: boolean): SimDataset[] {
  const names = all.map((s) => s.name.split('@')[1]);
  const end = names.indexOf(snap);
  if (end < 0) return [];
  if (from !== undefined) return intermediary ? all.slice(names.indexOf(from) + 1, end + 1) : [all[end]];
  return replicate ? all.slice(0, end + 1) : [all[end]];
}

/** One stream of a send: a snapshot of a dataset, full or from the previous one (`from`, a short name). */
interface StreamPart {
  from: string | null;
  to: string;
  size: number;
}

/**
 * The streams a send is made of, as libzfs's dump_snapshot walks them (libzfs_sendrecv.c): for each dataset
 * (parents first), each carried snapshot in creation order — the first full, or incremental from `-i`/`-I`'s
 * snapshot, each later one incremental from the one before. A full stream is sized like the snapshot's
 * referenced data, an incremental like a hundredth of it.
 */
function streamParts(datasets: { d: SimDataset; snaps: SimDataset[] }[], from: string | undefined): StreamPart[] {
  const parts: StreamPart[] = [];
  for (const { d, snaps } of datasets) {
    let prev = from ?? null;
    for (const s of snaps) {
      const refer = s.referencedBytes ?? d.referencedBytes ?? d.usedBytes;
      parts.push({ from: prev, to: s.name, size: prev === null ? refer : Math.max(4096, Math.round(refer / 100)) });
      prev = s.name.split('@')[1];
    }
  }
  return parts;
}

/** What a raw stream carries of a dataset's encryption without its properties (the key stays the dataset's). */
const intrinsic = (d: SimDataset) =>
  Object.fromEntries(
    Object.entries(d.properties ?? {}).filter(([k]) => ['encryption', 'keyformat', 'pbkdf2iters', 'pbkdf2salt', SIM_KEY_PROPERTY].includes(k)),
  );

/**
 * A dataset's properties with the key of its encryption root: the wrapping key a raw stream's blocks need, which a
 * dataset under another encryption root does not carry itself in the simulator.
 */
function withKey(state: SimHost, d: SimDataset): Record<string, string> | undefined {
  const p = d.properties;
  if (!p?.encryptionroot || p[SIM_KEY_PROPERTY] !== undefined) return p;
  const key = findDataset(state, p.encryptionroot)?.properties?.[SIM_KEY_PROPERTY];
  return key === undefined ? p : { ...p, [SIM_KEY_PROPERTY]: key };
}

const encryptedProps = (d: SimDataset) => Boolean(d.properties?.encryption && d.properties.encryption !== 'off');

function send(ctx: CommandContext): CommandOutput {
  // zfs_main.c zfs_do_send: ":i:I:RsDpVvnPLeht:cwbd:SX:"
  const o = getopt(ctx.args, 'RsDpVvnPLehcwbSI:i:t:d:X:');
  const [target] = o.operands;
  if (!target || !target.includes('@')) return fail('missing snapshot argument', 2);
  const [fs, snap] = target.split('@');
  const root = findDataset(ctx.state, fs);
  if (!root || !findDataset(ctx.state, target)) return notExist(target);
  const fromArg = o.values.get('i') ?? o.values.get('I');
  const from = fromArg?.includes('@') ? fromArg.split('@')[1] : fromArg;
  if (from !== undefined && !findDataset(ctx.state, `${fs}@${from}`)) return notExist(`${fs}@${from}`);
  const members = o.flags.has('R') ? descendants(ctx.state, fs) : [root];
  const withProps = o.flags.has('R') || o.flags.has('p');
  // libzfs_sendrecv.c send_iterate_fs: properties (-R, -p) of an encrypted dataset only travel in a raw stream
  const locked = (o.flags.has('R') || o.flags.has('p')) && !o.flags.has('w') ? members.find(encryptedProps) : undefined;
  if (locked)
    return fail(
      `cannot send ${fs}@${snap}: encrypted dataset ${locked.name} may not be sent with properties without the raw flag\nwarning: cannot send '${fs}@${snap}': backup failed`,
    );
  const carried = (d: SimDataset) => streamSnapshots(snapshotsOf(ctx.state, d.name), snap, from, o.flags.has('R'), o.values.has('I'));
  const content = contentOf(ctx.state, root);
  const header: StreamHeader = {
    kind: from === undefined ? 'full' : 'incremental',
    snapshot: snap,
    from,
    source: fs,
    datasets: members.map((d) => ({
      rel: d.name.slice(fs.length),
      type: d.type,
      usedBytes: d.usedBytes,
      referencedBytes: d.referencedBytes,
      // properties travel with -R or -p only; a raw stream carries the encryption it is made of
      ...(withProps
        ? { mountpoint: d.mountpoint, properties: withKey(ctx.state, d) }
        : o.flags.has('w')
          ? { properties: intrinsic({ ...d, properties: withKey(ctx.state, d) }) }
          : {}),
      snapshots: carried(d).map((s) => ({
        name: s.name.split('@')[1],
        guid: s.guid ?? newGuid(),
        usedBytes: s.usedBytes,
        referencedBytes: s.referencedBytes,
        creation: s.creation,
      })),
    })),
    files: snapshotContent(content, snap),
    // the files of each snapshot the stream carries (the root dataset's)
    snapshotFiles: Object.fromEntries(
      carried(root)
        .map((x) => x.name.split('@')[1])
        .map((n) => [n, snapshotContent(content, n)]),
    ),
    ...(o.flags.has('w') ? { raw: true } : {}),
    ...(o.flags.has('R') ? { replicate: true } : {}),
  };
  const parts = streamParts(
    members.map((d) => ({ d, snaps: carried(d) })),
    from,
  );
  const size = parts.reduce((n, p) => n + p.size, 0);
  if (o.flags.has('n')) {
    // zfs_main.c: -P implies -v; a dry run's verbose lines go to stdout (libzfs_sendrecv.c zfs_send: std_out)
    if (o.flags.has('P'))
      return {
        stdout: `${parts.map((p) => (p.from === null ? `full\t${p.to}\t${p.size}` : `incremental\t${p.from}\t${p.to}\t${p.size}`)).join('\n')}\nsize\t${size}\n`,
      };
    return { stdout: o.flags.has('v') ? estimate(fs, from, snap, size) : '' };
  }
  const payload = 'x'.repeat(Math.min(size, maxPayload()));
  return {
    stdout: `${MAGIC}${JSON.stringify(header)}\n${payload}\n${TRAILER}${payload.length}\n`,
    stderr: o.flags.has('v') ? estimate(fs, from, snap, size) : '',
  };
}

/** `zfs send -v`'s estimate lines (zfs-send-v-*.txt). */
function estimate(fs: string, from: string | undefined, snap: string, size: number): string {
  return `send from @${from ?? ''} to ${fs}@${snap} estimated size is ${nicenum(size)}\ntotal estimated size is ${nicenum(size)}\nTIME        SENT   SNAPSHOT\n`;
}

function parseStream(text: string): StreamHeader | null {
  if (!text.startsWith(MAGIC)) return null;
  const nl = text.indexOf('\n');
  const end = text.lastIndexOf(`\n${TRAILER}`);
  if (nl < 0 || end < nl) return null;
  const declared = Number(text.slice(end + 1 + TRAILER.length).trim());
  const payload = text.slice(nl + 1, end);
  if (!Number.isInteger(declared) || payload.length !== declared) return null;
  try {
    return JSON.parse(text.slice(MAGIC.length, nl)) as StreamHeader;
  } catch {
    return null;
  }
}

/**
 * Whether a filesystem changed since one of its snapshots (its newest when none is named), as the kernel decides
 * before an incremental receive (dsl_dataset_modified_since_snap: any block born after the snapshot — a write, a
 * removal, an atime update): here, its files differ from what the snapshot recorded. Writes while it is not
 * mounted cannot reach it.
 */
export function modifiedSinceSnapshot(state: SimHost, d: SimDataset, snap?: string): boolean {
  const since = snap ?? snapshotsOf(state, d.name).at(-1)?.name.split('@')[1];
  if (since === undefined || d.type !== 'filesystem') return false;
  const content = contentOf(state, d);
  const recorded = filesUnder(content, snapDir(since));
  const now = live(content);
  const keys = Object.keys(now);
  return keys.length !== Object.keys(recorded).length || keys.some((k) => recorded[k]?.content !== now[k].content);
}

/**
 * Whether the kernel refuses an incremental stream's snapshots, taken in the stream's order (parents first, each
 * dataset's snapshots oldest first), as libzfs_sendrecv.c zfs_receive_one (zfs-2.3.2, the same in 2.2.7) meets
 * them: `-v` prints `receiving …` before each; a snapshot the destination already has is skipped (the ioctl's
 * EEXIST: `snap … already exists; ignoring`). Otherwise dmu_recv.c recv_begin_check_existing_impl: the snapshot the
 * stream starts from must be one of the destination's, not necessarily its newest (ENODEV: `most recent snapshot
 * of … does not match incremental source`), and without -F the destination must be unchanged since that snapshot
 * (ETXTBSY: `destination … has been modified since most recent snapshot`); a raw stream's must be the newest.
 * So a `-R -I @a c` stream is received by a copy whose newest snapshot is one the stream carries, and an
 * incremental from an older snapshot by a copy whose later snapshots hold the same files. The simulator checks
 * them all before receiving any (a real receive keeps the snapshots received before the refusal).
 */
function incrementalRefusal(state: SimHost, h: StreamHeader, fs: string, force: boolean): { printed: string; message: string } | null {
  let printed = '';
  const src = h.source ?? fs;
  for (const sd of h.datasets) {
    const name = `${fs}${sd.rel}`;
    const d = findDataset(state, name);
    const have = d ? snapshotsOf(state, name).map((x) => x.name.split('@')[1]) : [];
    let received = false;
    for (const [i, s] of sd.snapshots.entries()) {
      const dst = `${name}@${s.name}`;
      printed += `receiving incremental stream of ${src}${sd.rel}@${s.name} into ${dst}\n`;
      if (have.includes(s.name)) {
        printed += `snap ${dst} already exists; ignoring\nreceived 0B stream in 0.01 seconds (0B/sec)\n`;
        continue;
      }
      const before = sd.snapshots[i - 1]?.name ?? h.from;
      const refuse = (why: string) => ({ printed, message: `cannot receive incremental stream: ${why}` });
      if (!d || before === undefined || !have.includes(before)) return refuse(`most recent snapshot of ${name} does not\nmatch incremental source`);
      if (!force && !received && (modifiedSinceSnapshot(state, d, before) || (h.raw && have.at(-1) !== before)))
        return refuse(`destination ${name} has been modified\nsince most recent snapshot`);
      printed += 'received 0B stream in 0.01 seconds (0B/sec)\n';
      have.push(s.name);
      received = true;
    }
  }
  return null;
}

/**
 * What `zfs recv -v` prints (libzfs_sendrecv.c zfs_receive_one): for each dataset of the stream, parents first, each
 * snapshot it carries — the first of a full stream full, the others incremental — as `receiving … stream of
 * <src>@<snap> into <dst>@<snap>`, then `received <size> stream in <t> seconds (<rate>/sec)`; a snapshot the
 * destination already has is `snap <dst>@<snap> already exists; ignoring` instead (recv_incremental_replication).
 */
function verboseReceive(h: StreamHeader, fs: string, existing: Set<string>): string {
  let out = '';
  const src = h.source ?? fs;
  for (const sd of h.datasets) {
    for (const [i, s] of sd.snapshots.entries()) {
      const kind = h.kind === 'full' && i === 0 ? 'full' : 'incremental';
      const dst = `${fs}${sd.rel}@${s.name}`;
      out += `receiving ${kind} stream of ${src}${sd.rel}@${s.name} into ${dst}\n`;
      const size = Math.max(1024, kind === 'full' ? (s.referencedBytes ?? s.usedBytes) : Math.floor((s.referencedBytes ?? s.usedBytes) / 100));
      // zfs_receive_one: a skipped snapshot's (empty) stream is reported received too
      if (existing.has(dst)) out += `snap ${dst} already exists; ignoring\nreceived 0B stream in 0.01 seconds (0B/sec)\n`;
      else out += `received ${nicenum(size)} stream in 0.01 seconds (${nicenum(size * 100)}/sec)\n`;
    }
  }
  return out;
}

/**
 * zfs receive: refusals in libzfs's words (libzfs_sendrecv.c zfs_receive_one, and the kernel's checks it reports,
 * dmu_recv.c recv_begin_check_existing_impl) — a full stream onto an existing dataset without -F, or into a
 * parent that does not exist; an incremental whose source is not the destination's newest snapshot, or onto a
 * destination modified since that snapshot (without -F, which rolls the change back) — and -o/-x as
 * zfs-recv-props.ts applies them.
 */
function recv(ctx: CommandContext): CommandOutput {
  // zfs_main.c zfs_do_receive: getopt ":o:x:dehMnuvFsAc" (-s, resumable, takes no argument)
  const o = getopt(ctx.args, 'FhMnuvdeAsco:x:');
  const [fs] = o.operands;
  if (!fs || fs.includes('@')) return fail('missing snapshot argument', 2);
  const cmdProps = parseRecvProps(ctx.args);
  if ('error' in cmdProps) return fail(cmdProps.error);
  const h = parseStream(ctx.stdin);
  if (!h)
    return fail(
      ctx.stdin.length ? 'cannot receive new filesystem stream: checksum mismatch or incomplete stream' : 'cannot receive: failed to read from stream',
    );
  if (!ctx.state.pools.some((p) => p.name === poolOf(fs))) return notExist(poolOf(fs));
  const existing = findDataset(ctx.state, fs);
  const errbuf = h.kind === 'full' ? 'cannot receive new filesystem stream' : 'cannot receive incremental stream';
  if (h.kind === 'full') {
    if (existing && !o.flags.has('F')) return fail(`cannot receive new filesystem stream: destination '${fs}' exists\nmust specify -F to overwrite it`);
    if (existing && snapshotsOf(ctx.state, fs).length) {
      return fail(
        `cannot receive new filesystem stream: destination has snapshots (eg. ${snapshotsOf(ctx.state, fs)[0].name})\nmust destroy them to overwrite it`,
      );
    }
    const parent = parentOf(fs);
    if (!existing && parent) {
      // zfs_receive_one: "validate parent" — zfs_open prints its own error, then the receive's
      const p = findDataset(ctx.state, parent);
      if (!p) return fail(`cannot open '${parent}': dataset does not exist\ncannot receive new filesystem stream: unable to restore to destination`);
      if (p.type !== 'filesystem') return fail(`cannot receive new filesystem stream: parent '${parent}' is not a filesystem`);
    }
  } else {
    if (!existing) return fail(`cannot receive incremental stream: destination '${fs}' does not exist`);
    const refused = incrementalRefusal(ctx.state, h, fs, o.flags.has('F'));
    if (refused) return { code: 1, stdout: o.flags.has('v') ? refused.printed : '', stderr: `${refused.message}\n` };
  }
  const refusal = rawStreamRefusal(cmdProps, h.raw === true);
  // libzfs_sendrecv.c zfs_receive_package (zfs-2.3.2; 2.2.7 the same): after a raw package's receive, even a refused
  // one, recv_fix_encryption_hierarchy opens the top dataset zfs_receive_one recorded — absent when it was new
  if (refusal) return fail(`${errbuf}: ${refusal}${h.replicate && h.raw && !existing ? `\ncannot open '${fs}': dataset does not exist` : ''}`);
  if (o.flags.has('n')) return {};
  const existingSnaps = new Set(ctx.state.datasets.filter((d) => d.type === 'snapshot').map((d) => d.name));
  for (const sd of h.datasets) {
    const name = `${fs}${sd.rel}`;
    let d = findDataset(ctx.state, name);
    const isNew = !d;
    if (!d) {
      // `-u`: a filesystem the receive creates is not mounted (its files are not visible at its mountpoint)
      d = {
        name,
        type: sd.type,
        guid: newGuid(),
        usedBytes: 0,
        creation: Math.floor(ctx.now / 1000),
        ...(sd.type === 'filesystem' && o.flags.has('u') ? { mounted: false } : {}),
      };
      ctx.state.datasets.push(d);
    }
    d.usedBytes = sd.usedBytes;
    if (sd.referencedBytes !== undefined) d.referencedBytes = sd.referencedBytes;
    const keystatus = d.properties?.keystatus;
    const wasAt = isMounted(ctx.state, d) ? mountpointOf(ctx.state, d) : null;
    applyReceivedProps(d, sd, cmdProps, sd.rel === '');
    if (wasAt) remount(ctx.state, wasAt, mountpointOf(ctx.state, d));
    if (encryptedProps(d)) {
      // an encrypted dataset arrives locked (a loaded key stays loaded); a raw one's keylocation is prompt unless -o sets it
      d.properties = { ...d.properties, keystatus: isNew ? 'unavailable' : (keystatus ?? 'unavailable') };
      // a raw receive makes the stream's top dataset an encryption root of its own (dsl_crypto_recv_raw_key_sync:
      // the wrapping key travels with it), whatever root it had on the sender; below it, roots map into the copy
      if (isNew && h.raw && sd.rel === '') d.properties = { ...d.properties, keylocation: cmdProps.set.get('keylocation') ?? 'prompt', encryptionroot: name };
      else if (isNew && h.raw) {
        const root = sd.properties?.encryptionroot;
        const src = h.source ?? '';
        d.properties.encryptionroot = root && root.startsWith(`${src}/`) ? `${fs}${root.slice(src.length)}` : fs;
        if (d.properties.encryptionroot !== name) d.properties.keylocation = 'none';
      }
    }
    for (const s of sd.snapshots) {
      if (!findDataset(ctx.state, `${name}@${s.name}`))
        ctx.state.datasets.push({
          name: `${name}@${s.name}`,
          type: 'snapshot',
          guid: s.guid,
          usedBytes: s.usedBytes,
          referencedBytes: s.referencedBytes,
          creation: s.creation,
        });
    }
  }
  const root = findDataset(ctx.state, fs)!;
  if (root.type === 'filesystem') {
    const kept = Object.fromEntries(Object.entries(contentOf(ctx.state, root)).filter(([rel]) => rel.startsWith('.zfs/')));
    const snaps = Object.entries(h.snapshotFiles ?? { [h.snapshot]: h.files }).map(([n, files]) => under(snapDir(n), files));
    setContent(ctx.state, root, Object.assign(kept, h.files, ...snaps));
  }
  return { stdout: o.flags.has('v') ? verboseReceive(h, fs, existingSnaps) : '' };
}

// zfs_main.c usage(B_FALSE) for a command other than set/get/inherit/list: its usage, then these three hints
const ZFS_USAGE_HINTS =
  '\n\nFor the property list, run: zfs set|get\n\nFor the delegated permission list, run: zfs allow|unallow\n\nFor further help on a command or topic, run: zfs help [<topic>]';
registerSubcommand('zfs', 'snapshot', withUsage(snapshot, `\tsnapshot [-r] [-o property=value] ... <filesystem|volume>@<snap> ...${ZFS_USAGE_HINTS}`));
registerSubcommand('zfs', 'send', withUsage(send, '\tsend [-DnPpRvLecwhb] [-[i|I] snapshot] <snapshot>'));
// zfs_main.c get_usage(HELP_RECEIVE)
const RECV_USAGE =
  '\treceive [-vMnsFhu] [-o <property>=<value>] ... [-x <property>] ...\n\t    <filesystem|volume|snapshot>\n\treceive [-vMnsFhu] [-o <property>=<value>] ... [-x <property>] ... \n\t    [-d | -e] <filesystem>\n\treceive -A <filesystem|volume>';
registerSubcommand('zfs', 'recv', withUsage(recv, RECV_USAGE));
registerSubcommand('zfs', 'receive', withUsage(recv, RECV_USAGE));
