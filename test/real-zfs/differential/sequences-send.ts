import { WORK, type Sequence, type Step } from './sequence.ts';
import { files, pool } from './sequences-pool.ts';
import { KEY, keyFile, MOUNTS, sourced, value, write } from './sequences-dataset.ts';
import { PASSPHRASE_ROOT } from '../scenario.ts';

/**
 * send/recv as the agent runs them: a backup job's stream (backup-stream.ts), E20's replication (replication.ts),
 * E15's restore (restore.ts); full, incremental, raw encrypted, and the receive's refusals.
 */
const BACKUP_RECV = (target: string) => ['zfs', 'recv', '-u', '-x', 'mountpoint', '-o', 'canmount=noauto', '-v', target];
const backupSend = (ds: string, snap: string, raw: boolean, from?: string) => [
  'zfs',
  'send',
  '-R',
  ...(raw ? ['-w'] : ['-L', '-c']),
  ...(from ? ['-I', `@${from}`] : []),
  `${ds}@${snap}`,
];
const estimate = (argv: string[], flag = '-nvP') => [...argv.slice(0, 2), flag, ...argv.slice(2)];
const REPL_RECV = (target: string, keylocation?: string) => ['zfs', 'recv', '-F', '-u', ...(keylocation ? ['-o', `keylocation=${keylocation}`] : []), target];
const replSend = (ds: string, snap: string, raw: boolean, from?: string) => [
  'zfs',
  'send',
  '-R',
  ...(raw ? ['-w'] : ['-L', '-c']),
  ...(from ? ['-i', `@${from}`] : []),
  `${ds}@${snap}`,
];
const RESTORE_SEND = (ds: string, snap: string) => ['zfs', 'send', '-R', '-w', `${ds}@${snap}`];
const RESTORE_RECV = (into: string) => ['zfs', 'recv', '-u', '-x', 'mountpoint', '-x', 'canmount', into];
const snapR = (name: string) => ({ run: ['zfs', 'snapshot', '-r', name] });

/** tank (tank/a with a file, tank/a/b) and bk, both on file vdevs */
const twoPools: Step[] = [
  files(2),
  pool('tank', 0),
  pool('bk', 1),
  { run: ['zfs', 'create', 'tank/a'] },
  { run: ['zfs', 'create', 'tank/a/b'] },
  write('/tank/a/file'),
];
/** tank/enc an encryption root (key file), tank/enc/d inheriting it, bk */
const encPools: Step[] = [
  files(2),
  pool('tank', 0),
  pool('bk', 1),
  keyFile(),
  { run: ['zfs', 'create', ...PASSPHRASE_ROOT, '-o', `keylocation=file://${WORK}/key`, 'tank/enc'] },
  { run: ['zfs', 'create', 'tank/enc/d'] },
  write('/tank/enc/d/file'),
];

export const SEND_SEQUENCES: Sequence[] = [
  {
    id: 'backup-full',
    title: 'a backup run: send -R -L -c | recv -u -x mountpoint -o canmount=noauto -v; the copy is not mounted',
    steps: [
      ...twoPools,
      snapR('tank/a@s1'),
      { numbers: true, run: estimate(backupSend('tank/a', 's1', false)) },
      { pipe: [backupSend('tank/a', 's1', false), BACKUP_RECV('bk/a')] },
      { run: MOUNTS('bk') },
      { run: sourced('mountpoint,canmount', 'bk/a') },
      { run: sourced('mountpoint,canmount', 'bk/a/b') },
      { run: ['zfs', 'list', '-H', '-p', '-t', 'snapshot', '-o', 'name,guid', '-d', '1', 'bk/a'] },
    ],
  },
  {
    id: 'backup-incremental',
    title: 'the next run: send -R -L -c -I @s1 s3 carries s2 and s3',
    steps: [
      ...twoPools,
      snapR('tank/a@s1'),
      { pipe: [backupSend('tank/a', 's1', false), BACKUP_RECV('bk/a')] },
      write('/tank/a/file', 'more\n'),
      snapR('tank/a@s2'),
      snapR('tank/a@s3'),
      { numbers: true, run: estimate(backupSend('tank/a', 's3', false, 's1')) },
      { pipe: [backupSend('tank/a', 's3', false, 's1'), BACKUP_RECV('bk/a')] },
      { run: ['zfs', 'list', '-H', '-o', 'name', '-t', 'snapshot', '-r', 'bk'] },
      { run: MOUNTS('bk') },
    ],
  },
  {
    id: 'backup-full-exists',
    title: 'a full stream onto an existing copy is refused without -F',
    steps: [
      ...twoPools,
      snapR('tank/a@s1'),
      { pipe: [backupSend('tank/a', 's1', false), BACKUP_RECV('bk/a')] },
      { pipe: [backupSend('tank/a', 's1', false), BACKUP_RECV('bk/a')] },
    ],
  },
  {
    id: 'backup-incremental-mismatch',
    title: "an incremental whose source is not the copy's newest snapshot is refused",
    steps: [
      ...twoPools,
      snapR('tank/a@s1'),
      snapR('tank/a@s2'),
      { pipe: [backupSend('tank/a', 's2', false), BACKUP_RECV('bk/a')] },
      snapR('tank/a@s3'),
      { pipe: [backupSend('tank/a', 's3', false, 's1'), BACKUP_RECV('bk/a')] },
      { run: ['zfs', 'list', '-H', '-o', 'name', '-t', 'snapshot', '-r', 'bk'] },
    ],
  },
  {
    id: 'backup-copy-modified',
    title: 'a copy mounted and written to: the next incremental is refused (modified since most recent snapshot)',
    steps: [
      ...twoPools,
      snapR('tank/a@s1'),
      { pipe: [backupSend('tank/a', 's1', false), BACKUP_RECV('bk/a')] },
      { run: ['zfs', 'mount', 'bk/a'] },
      write('/bk/a/changed'),
      snapR('tank/a@s2'),
      { pipe: [backupSend('tank/a', 's2', false, 's1'), BACKUP_RECV('bk/a')] },
    ],
  },
  {
    id: 'backup-missing-parent',
    title: 'a full stream into a parent that does not exist, and from a snapshot that does not exist',
    steps: [
      ...twoPools,
      snapR('tank/a@s1'),
      { pipe: [backupSend('tank/a', 's1', false), BACKUP_RECV('bk/x/a')] },
      { pipe: [backupSend('tank/a', 'none', false), BACKUP_RECV('bk/a')] },
      { numbers: true, run: estimate(backupSend('tank/a', 'none', false)) },
    ],
  },
  {
    id: 'backup-raw-encrypted',
    title: 'an encrypted dataset under an encryption root backed up raw: the copy is its own root, keylocation prompt, locked',
    steps: [
      ...encPools,
      snapR('tank/enc/d@s1'),
      { run: value('encryption', 'tank/enc/d') },
      { numbers: true, run: estimate(backupSend('tank/enc/d', 's1', true)) },
      { pipe: [backupSend('tank/enc/d', 's1', true), BACKUP_RECV('bk/d')] },
      { run: value('encryption,encryptionroot', 'bk/d') },
      { run: value('keylocation', 'bk/d') },
      { run: sourced('keyformat,keystatus', 'bk/d') },
      { run: MOUNTS('bk') },
    ],
  },
  {
    id: 'backup-raw-incremental',
    title: 'a raw incremental (-w -I) onto a raw copy',
    steps: [
      ...encPools,
      snapR('tank/enc/d@s1'),
      { pipe: [backupSend('tank/enc/d', 's1', true), BACKUP_RECV('bk/d')] },
      snapR('tank/enc/d@s2'),
      { pipe: [backupSend('tank/enc/d', 's2', true, 's1'), BACKUP_RECV('bk/d')] },
      { run: ['zfs', 'list', '-H', '-o', 'name', '-t', 'snapshot', '-r', 'bk'] },
      { run: sourced('keyformat,keystatus', 'bk/d') },
    ],
  },
  {
    id: 'send-encrypted-not-raw',
    title: 'an encrypted dataset sent with properties but not raw is refused by the sender',
    steps: [...encPools, snapR('tank/enc/d@s1'), { pipe: [backupSend('tank/enc/d', 's1', false), BACKUP_RECV('bk/d')] }],
  },
  {
    id: 'recv-raw-encryption-prop',
    title: 'a raw stream cannot have an encryption property set or excluded on receive',
    steps: [
      ...encPools,
      snapR('tank/enc/d@s1'),
      { pipe: [RESTORE_SEND('tank/enc/d', 's1'), ['zfs', 'recv', '-u', '-o', 'encryption=off', 'bk/d']] },
      { pipe: [RESTORE_SEND('tank/enc/d', 's1'), ['zfs', 'recv', '-u', '-x', 'encryption', 'bk/d']] },
      { pipe: [RESTORE_SEND('tank/enc/d', 's1'), ['zfs', 'recv', '-u', '-o', 'keylocation=prompt', 'bk/d']] },
      { run: value('keylocation', 'bk/d') },
    ],
  },
  {
    id: 'replication-full-incremental',
    title: 'E20 migration: send -R -L -c | recv -F -u, then -i; -nP estimates; mountpoint set on the target',
    steps: [
      ...twoPools,
      { run: ['zfs', 'set', `mountpoint=${WORK}/jail`, 'tank/a'] },
      snapR('tank/a@m1'),
      { numbers: true, run: estimate(replSend('tank/a', 'm1', false), '-nP') },
      { pipe: [replSend('tank/a', 'm1', false), REPL_RECV('bk/a')] },
      { run: ['zfs', 'list', '-H', '-o', 'name', 'bk/a'] },
      { run: value('mountpoint', 'bk/a') },
      { run: MOUNTS('bk') },
      write(`${WORK}/jail/file`, 'changed\n'),
      snapR('tank/a@m2'),
      { numbers: true, run: estimate(replSend('tank/a', 'm2', false, 'm1'), '-nP') },
      { pipe: [replSend('tank/a', 'm2', false, 'm1'), REPL_RECV('bk/a')] },
      { run: ['zfs', 'list', '-H', '-o', 'name', '-t', 'snapshot', '-r', 'bk'] },
      { run: ['zfs', 'set', `mountpoint=${WORK}/moved`, 'bk/a'] },
      { run: value('mountpoint', 'bk/a') },
      { run: ['zfs', 'destroy', '-r', 'tank/a'] },
      { run: ['zfs', 'list', '-H', '-o', 'name', 'tank/a'] },
    ],
  },
  {
    id: 'replication-force-rollback',
    title: 'recv -F -u rolls back a target changed since its newest snapshot',
    steps: [
      ...twoPools,
      snapR('tank/a@m1'),
      { pipe: [replSend('tank/a', 'm1', false), REPL_RECV('bk/a')] },
      { run: ['zfs', 'mount', 'bk/a'] },
      write('/bk/a/changed'),
      snapR('tank/a@m2'),
      { pipe: [replSend('tank/a', 'm2', false, 'm1'), REPL_RECV('bk/a')] },
      { run: ['zfs', 'list', '-H', '-o', 'name', '-t', 'snapshot', '-r', 'bk/a'] },
    ],
  },
  {
    id: 'replication-encrypted',
    title: 'E20 of an encrypted dataset: raw, -o keylocation on the first receive, load-key from that file',
    steps: [
      ...encPools,
      snapR('tank/enc/d@m1'),
      { run: value('encryption,encryptionroot', 'tank/enc/d') },
      { run: value('keylocation', 'tank/enc') },
      { pipe: [replSend('tank/enc/d', 'm1', true), REPL_RECV('bk/d', `file://${WORK}/key`)] },
      { run: value('keylocation', 'bk/d') },
      { run: value('encryption,encryptionroot', 'bk/d') },
      { run: ['zfs', 'load-key', 'bk/d'] },
      { run: sourced('keyformat,keystatus', 'bk/d') },
      snapR('tank/enc/d@m2'),
      { pipe: [replSend('tank/enc/d', 'm2', true, 'm1'), REPL_RECV('bk/d')] },
      { run: ['zfs', 'list', '-H', '-o', 'name', '-t', 'snapshot', '-r', 'bk/d'] },
      { run: ['zfs', 'mount', 'bk/d'] },
      { run: MOUNTS('bk') },
    ],
  },
  {
    id: 'restore-plain',
    title: 'E15 restore of an unencrypted copy: send -R -w | recv -u -x mountpoint -x canmount, rename, set, mount',
    steps: [
      ...twoPools,
      snapR('tank/a@s1'),
      { pipe: [backupSend('tank/a', 's1', false), BACKUP_RECV('bk/a')] },
      { run: sourced('mountpoint,canmount', 'tank/a') },
      { pipe: [RESTORE_SEND('bk/a', 's1'), RESTORE_RECV('tank/a-restoring')] },
      { run: sourced('keyformat,keystatus', 'tank/a-restoring') },
      { run: sourced('mountpoint,canmount', 'tank/a-restoring') },
      { run: MOUNTS('tank') },
      { run: ['zfs', 'rename', 'tank/a', 'tank/a-old'] },
      { run: ['zfs', 'rename', 'tank/a-restoring', 'tank/a'] },
      { run: ['zfs', 'set', 'mountpoint=/tank/a', 'tank/a'] },
      { run: ['zfs', 'set', 'canmount=on', 'tank/a'] },
      { run: ['zfs', 'mount', 'tank/a'] },
      { run: MOUNTS('tank') },
      { run: ['zfs', 'list', '-H', '-p', '-t', 'snapshot', '-o', 'name', '-d', '1', 'tank/a'] },
    ],
  },
  {
    id: 'restore-encrypted',
    title: 'E15 restore of a raw copy: locked, keylocation prompt; load-key -L prompt with the key on stdin',
    steps: [
      ...encPools,
      snapR('tank/enc/d@s1'),
      { pipe: [backupSend('tank/enc/d', 's1', true), BACKUP_RECV('bk/d')] },
      { pipe: [RESTORE_SEND('bk/d', 's1'), RESTORE_RECV('tank/enc/d-restoring')] },
      { run: sourced('keyformat,keystatus', 'tank/enc/d-restoring') },
      { run: value('encryption,encryptionroot', 'tank/enc/d-restoring') },
      { run: value('keylocation', 'tank/enc/d-restoring') },
      { run: ['zfs', 'load-key', '-L', 'prompt', 'tank/enc/d-restoring'], stdin: 'wrong key here\n' },
      { run: ['zfs', 'load-key', '-L', 'prompt', 'tank/enc/d-restoring'], stdin: `${KEY}\n` },
      { run: sourced('keyformat,keystatus', 'tank/enc/d-restoring') },
      { run: ['zfs', 'load-key', '-L', 'prompt', 'tank/enc/d-restoring'], stdin: `${KEY}\n` },
      { run: ['zfs', 'mount', 'tank/enc/d-restoring'] },
      { run: MOUNTS('tank/enc') },
    ],
  },
  {
    id: 'restore-then-next-backup',
    title: 'after a restore of an older snapshot, the next incremental to the same copy',
    steps: [
      ...twoPools,
      snapR('tank/a@s1'),
      { pipe: [backupSend('tank/a', 's1', false), BACKUP_RECV('bk/a')] },
      snapR('tank/a@s2'),
      { pipe: [backupSend('tank/a', 's2', false, 's1'), BACKUP_RECV('bk/a')] },
      { pipe: [RESTORE_SEND('bk/a', 's1'), RESTORE_RECV('tank/a-restoring')] },
      { run: ['zfs', 'destroy', '-r', 'tank/a'] },
      { run: ['zfs', 'rename', 'tank/a-restoring', 'tank/a'] },
      snapR('tank/a@s3'),
      { pipe: [backupSend('tank/a', 's3', false, 's1'), BACKUP_RECV('bk/a')] },
      { pipe: [backupSend('tank/a', 's3', false, 's2'), BACKUP_RECV('bk/a')] },
    ],
  },
  {
    id: 'recv-stream-broken',
    title: 'zfs recv of an empty stream',
    steps: [...twoPools, { run: BACKUP_RECV('bk/a'), stdin: '' }, { run: ['zfs', 'list', '-H', '-o', 'name', 'bk/a'] }],
  },
];

/**
 * The forms the agent gained from the first real-OpenZFS runs (a copy rolled back to the stream's origin before an
 * incremental, a restored dataset put back under its encryption root, a pool's altroot read): last in the list,
 * so the keys of the sequences before them stay put.
 */
export const AGENT_FIX_SEQUENCES: Sequence[] = [
  {
    id: 'copy-rollback-change-key',
    title: 'zfs rollback -r of a copy, change-key -i of a restored dataset, set keylocation, zpool get altroot',
    steps: [
      ...encPools,
      snapR('tank/enc/d@s1'),
      { pipe: [backupSend('tank/enc/d', 's1', true), BACKUP_RECV('bk/d')] },
      snapR('tank/enc/d@s2'),
      { pipe: [backupSend('tank/enc/d', 's2', true, 's1'), BACKUP_RECV('bk/d')] },
      { run: ['zfs', 'list', '-H', '-o', 'name', '-t', 'filesystem,volume', '-r', 'bk'] },
      { run: ['zfs', 'rollback', '-r', 'bk/d@s1'] },
      { run: ['zfs', 'list', '-H', '-o', 'name', '-t', 'snapshot', '-r', 'bk'] },
      { pipe: [RESTORE_SEND('bk/d', 's1'), RESTORE_RECV('tank/enc/d-restoring')] },
      { run: ['zfs', 'load-key', '-L', 'prompt', 'tank/enc/d-restoring'], stdin: `${KEY}\n` },
      { run: ['zfs', 'change-key', '-i', 'tank/enc/d-restoring'] },
      { run: value('encryption,encryptionroot', 'tank/enc/d-restoring') },
      { run: value('keylocation', 'tank/enc/d-restoring') },
      { run: ['zfs', 'set', 'keylocation=prompt', 'bk/d'] },
      { run: sourced('keyformat,keystatus', 'bk/d') },
      { run: ['zpool', 'get', '-H', '-o', 'value', 'altroot', 'tank'] },
    ],
  },
];
