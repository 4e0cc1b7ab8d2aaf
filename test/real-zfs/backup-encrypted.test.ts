import { backupRun } from '#agent/jobs/backup-run';
import { restoreBackup } from '#agent/jobs/backup-restore';
import { type Guest, guest } from './guest.ts';
import { createPool, dropPool, jobContext, PASSPHRASE_ROOT, propsWithSource, VDEV_DIR, values } from './scenario.ts';

/**
 * A dataset that inherits its encryption (hmesrc/enc/db under the encryption root hmesrc/enc, its key in a file)
 * backed up raw and restored by E15, on real OpenZFS. A raw receive makes the received dataset its own encryption
 * root with keylocation=prompt (the research's run on 2.3.2); the restore must put it back under its encryption
 * root, or nothing loads its key at the next boot. The boot is stood in for by zpool export/import, then the keys
 * loaded from their keylocation and the filesystems mounted, as the boot services do (FreeBSD's rc.d/zfskeys
 * loads the keys of encryption roots with a file:// keylocation, then rc.d/zfs mounts).
 */
const SRC = 'hmesrc';
const BK = 'hmebk';
const JOB = 12;
const ROOT = `${SRC}/enc`;
const DS = `${ROOT}/db`;
const COPY = `${BK}/backups/db`;
const DATA = `/${DS}/data.txt`;
const KEYFILE = '/root/hm-enc.key';
const PASSPHRASE = 'correct horse battery staple';

let g: Guest;
let clock = Date.UTC(2026, 0, 2, 3, 0, 0);
const notFaked = ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'nextTick', 'queueMicrotask'] as const;
beforeEach(() => jest.useFakeTimers({ now: clock, doNotFake: [...notFaked, 'hrtime', 'performance'] }));
afterEach(() => jest.useRealTimers());
const nextMinute = () => jest.setSystemTime((clock += 60_000));

beforeAll(async () => {
  g = await guest();
  await createPool(g, SRC);
  await createPool(g, BK);
  await g.ok(['sh', '-c', `printf '%s' '${PASSPHRASE}' > ${KEYFILE} && chmod 600 ${KEYFILE}`]);
  await g.ok(['zfs', 'create', ...PASSPHRASE_ROOT, '-o', `keylocation=file://${KEYFILE}`, ROOT]);
  await g.ok(['zfs', 'create', DS]);
  await g.ok(['zfs', 'create', `${BK}/backups`]);
});
afterAll(async () => {
  if (!g) return;
  await dropPool(g, SRC);
  await dropPool(g, BK);
  await g.ok(['rm', '-f', KEYFILE]);
  await g.close();
});

const run = async (content: string) => {
  nextMinute();
  await g.sh(`printf %s '${content}' > ${DATA}`);
  return backupRun(jobContext(g, 'backup.run', `backup-job:${JOB}`), {
    jobId: JOB,
    source: DS,
    retention: 10,
    target: { kind: 'node', nodeId: 'node-b', dataset: COPY, label: `node-b:${COPY}` },
  });
};

test('the inherited-encryption dataset is backed up raw: the copy stays encrypted and locked on the backup pool', async () => {
  expect((await propsWithSource(g, 'encryptionroot', DS)).encryptionroot).toBe(`${ROOT} -`);
  expect(await run('secret v1')).toMatchObject({ mode: 'full' });
  expect(await run('secret v2')).toMatchObject({ mode: 'incremental' });
  // raw: the copy is encrypted with the source's key and nobody loaded it there
  expect(await values(g, 'encryption,keystatus,mounted', COPY)).toEqual(['aes-256-gcm', 'unavailable', 'no']);
});

test('restored, it is under its encryption root again, and after export/import its original key unlocks it', async () => {
  await g.sh(`printf %s 'not backed up' > ${DATA}`);
  nextMinute();
  const r = await restoreBackup(jobContext(g, 'backup.restore', `backup-job:${JOB}`), {
    jobId: JOB,
    eventId: 2,
    dataset: DS,
    snapshot: null,
    source: { kind: 'node', nodeId: 'node-b', dataset: COPY },
    guest: null,
    encryptionKey: PASSPHRASE,
    encryptionKeyFormat: 'passphrase',
  });
  expect(r).toMatchObject({ dataset: DS, from: 'target' });
  expect(await g.ok(['cat', DATA])).toBe('secret v2');
  const props = await propsWithSource(g, 'encryptionroot,keylocation,keystatus', DS);
  expect(props.encryptionroot).toBe(`${ROOT} -`);
  expect(props.keystatus).toBe('available -');
  // the encryption root's key location is where the key comes from at boot
  expect((await propsWithSource(g, 'keylocation', ROOT)).keylocation).toBe(`file://${KEYFILE} local`);

  // the reboot: keys unloaded with the export, loaded again from their keylocation, filesystems mounted
  await g.ok(['zpool', 'export', SRC]);
  await g.ok(['zpool', 'import', '-d', VDEV_DIR, SRC]);
  // the pool's keys, each from its encryption root's keylocation (not -a: the backup pool's locked copy has
  // keylocation=prompt, as a copy on a backup host should)
  await g.ok(['zfs', 'load-key', '-r', SRC]);
  await g.ok(['zfs', 'mount', '-a']);
  expect(await values(g, 'keystatus,mounted', DS)).toEqual(['available', 'yes']);
  expect(await g.ok(['cat', DATA])).toBe('secret v2');

  // and the job's next run still fits the copy
  expect(await run('secret v3')).toMatchObject({ mode: 'incremental' });
});
