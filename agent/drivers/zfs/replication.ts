import { settableMountpoint } from './altroot.ts';
import { CommandError, runChecked, type Executor } from '../../executors/executor.ts';
import { sendInto } from './send-receive.ts';
import { streamFlags } from './stream-flags.ts';

/**
 * ZFS replication for E20: snapshots, a dry-run size estimate, and `zfs send -R -w|-L -c` on this host piped into
 * `zfs recv -F -u` on another (over SSH, agent/executors/pipe.ts), full or incremental. An encrypted dataset
 * travels raw (stream-flags.ts) and arrives locked; its full receive sets the source's `keylocation` (the one
 * encryption property a raw receive may set, zfs-receive(8)), so `zfs load-key` on the target finds the key.
 */
interface SendEstimate {
  kind: 'full' | 'incremental';
  from: string | null;
  snapshot: string;
  bytes: number;
}

/**
 * `zfs send -nP` / `-nvP` (the parsable dry run): `full\t<snap>\t<bytes>` or `incremental\t<from>\t<snap>\t<bytes>`,
 * then `size\t<total>` (test/fixtures/freebsd/zfs-send-nvP-*.txt).
 */
export function parseSendDryRun(stdout: string): SendEstimate {
  let est: SendEstimate | null = null;
  let total: number | null = null;
  for (const line of stdout.split('\n')) {
    const f = line.split('\t');
    if (f[0] === 'full' && f.length >= 3) est = { kind: 'full', from: null, snapshot: f[1], bytes: Number(f[2]) };
    else if (f[0] === 'incremental' && f.length >= 4) est = { kind: 'incremental', from: f[1], snapshot: f[2], bytes: Number(f[3]) };
    else if (f[0] === 'size' && f.length >= 2) total = Number(f[1]);
  }
  if (!est) throw new Error(`unexpected zfs send -nP output: ${stdout.slice(0, 200)}`);
  if (total !== null && Number.isFinite(total)) est.bytes = total;
  return est;
}

export async function snapshot(exec: Executor, name: string): Promise<void> {
  await runChecked(exec, ['zfs', 'snapshot', '-r', name]);
}

export async function datasetExists(exec: Executor, name: string): Promise<boolean> {
  const r = await exec.run(['zfs', 'list', '-H', '-o', 'name', name]);
  if (r.code === 0) return true;
  if (/does not exist/.test(r.stderr)) return false;
  throw new CommandError(['zfs', 'list', '-H', '-o', 'name', name], r);
}

/** Destroys a dataset (recursively) or a snapshot; a missing one is not an error. */
export async function destroyIfExists(exec: Executor, name: string): Promise<boolean> {
  const r = await exec.run(['zfs', 'destroy', '-r', name]);
  if (r.code === 0) return true;
  if (/does not exist|could not find any snapshots/.test(r.stderr)) return false;
  throw new CommandError(['zfs', 'destroy', '-r', name], r);
}

/** One replication stream: `dataset@snap`, incremental from `@from` when given. */
export interface Stream {
  dataset: string;
  snap: string;
  from: string | null;
  /** the source's encryption: null when it is not encrypted, else the key location its receive sets */
  encryption: { keylocation: string } | null;
}

const sendArgv = (s: Stream) => ['zfs', 'send', '-R', ...streamFlags(s.encryption !== null), ...(s.from ? ['-i', `@${s.from}`] : []), `${s.dataset}@${s.snap}`];
const recvArgv = (s: Stream) => ['zfs', 'recv', '-F', '-u', ...(s.encryption && !s.from ? ['-o', `keylocation=${s.encryption.keylocation}`] : []), s.dataset];

export async function estimateSend(exec: Executor, s: Stream): Promise<number> {
  const argv = sendArgv(s);
  return parseSendDryRun(await runChecked(exec, [...argv.slice(0, 2), '-nP', ...argv.slice(2)])).bytes;
}

/** `zfs send -R … [-i @from] ds@snap | <target> zfs recv -F -u [-o keylocation=…] ds`; throws with the failing side's message. */
export async function sendTo(source: Executor, target: Executor, s: Stream, onBytes?: (n: number) => void): Promise<number> {
  return (await sendInto(source, sendArgv(s), target, recvArgv(s), onBytes)).bytes;
}

/**
 * What a migration needs to know of the source's encryption: null when it is not encrypted; otherwise the key
 * location of its encryption root, which must be a `file://` one — a raw receive arrives locked and the target
 * loads the key itself (`zfs load-key`), which it cannot do for a key typed at a prompt.
 */
export async function migrationEncryption(exec: Executor, dataset: string): Promise<Stream['encryption']> {
  const [encryption = '', root = ''] = (await runChecked(exec, ['zfs', 'get', '-H', '-o', 'value', 'encryption,encryptionroot', dataset])).split('\n');
  if (['', '-', 'off'].includes(encryption.trim())) return null;
  const encroot = root.trim() && root.trim() !== '-' ? root.trim() : dataset;
  const keylocation = (await runChecked(exec, ['zfs', 'get', '-H', '-o', 'value', 'keylocation', encroot])).trim();
  if (!keylocation.startsWith('file://')) {
    throw new Error(
      `${dataset} is encrypted (encryption root ${encroot}, keylocation ${keylocation}): the target could not unlock it; give ${encroot} a file:// keylocation whose key file is on both hosts`,
    );
  }
  return { keylocation };
}

/** `zfs load-key <dataset>`: the key from the dataset's own `keylocation`. */
export async function loadKeyFromLocation(exec: Executor, dataset: string): Promise<void> {
  await runChecked(exec, ['zfs', 'load-key', dataset]);
}

/** `zfs set mountpoint=<path> <dataset>`. */
export async function setMountpointTo(exec: Executor, dataset: string, path: string): Promise<void> {
  await runChecked(exec, ['zfs', 'set', `mountpoint=${path}`, dataset]);
}

/**
 * A filesystem's effective mountpoint when it is a path, as `zfs set` takes it (the pool's altroot taken off,
 * altroot.ts); `fallback` when it is `none` or `legacy`.
 */
export async function mountpointPath(exec: Executor, dataset: string, fallback: string): Promise<string> {
  const value = (await runChecked(exec, ['zfs', 'get', '-H', '-o', 'value', 'mountpoint', dataset])).trim();
  return value.startsWith('/') ? settableMountpoint(exec, dataset, value) : fallback;
}
