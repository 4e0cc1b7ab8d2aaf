import { backupRun } from '#agent/jobs/backup-run';
import { restoreBackup } from '#agent/jobs/backup-restore';
import type { BackupRestorePayload } from '#shared/agent-api/task-kinds';
import { type Guest, guest } from './guest.ts';
import { createPool, dropPool, jobContext, propsWithSource, VDEV_DIR, values } from './scenario.ts';

/**
 * A backup job's runs (E11) and restores (E15) on real OpenZFS: the runner's pool and the backup pool are both in
 * the guest, reached through the agent's SSH executor, and every check reads the guest's own `zfs get`/`zfs list`.
 * The tests run in order: each continues the job's history from the one before.
 */
const SRC = 'hmsrc';
const BK = 'hmbk';
const JOB = 11;
const DS = `${SRC}/jails/web`;
const COPY = `${BK}/backups/web`;
const DATA = `/${DS}/data.txt`;

let g: Guest;
// snapshot names carry the UTC second: each run "a minute" after the one before (only Date is faked)
let clock = Date.UTC(2026, 0, 1, 3, 0, 0);
const notFaked = ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate', 'nextTick', 'queueMicrotask'] as const;
beforeEach(() => jest.useFakeTimers({ now: clock, doNotFake: [...notFaked, 'hrtime', 'performance'] }));
afterEach(() => jest.useRealTimers());
const nextMinute = () => jest.setSystemTime((clock += 60_000));

beforeAll(async () => {
  g = await guest();
  await createPool(g, SRC);
  await createPool(g, BK);
  await g.ok(['zfs', 'create', '-p', DS]);
  await g.ok(['zfs', 'create', `${BK}/backups`]);
});
afterAll(async () => {
  if (!g) return;
  await dropPool(g, SRC);
  await dropPool(g, BK);
  await g.close();
});

const write = (path: string, content: string) => g.sh(`printf %s '${content}' > ${path}`);
const read = (path: string) => g.ok(['cat', path]);
const snapshots = async (ds: string) =>
  (await g.ok(['zfs', 'list', '-H', '-p', '-t', 'snapshot', '-o', 'name,guid', '-d', '1', '-s', 'createtxg', ds]))
    .trimEnd()
    .split('\n')
    .filter(Boolean)
    .map((l) => l.split('\t'));

const runPayload = (jobId: number, source: string, dataset: string) => ({
  jobId,
  source,
  retention: 10,
  target: { kind: 'node' as const, nodeId: 'node-b', dataset, label: `node-b:${dataset}` },
});
const restorePayload = (over: Partial<BackupRestorePayload>): BackupRestorePayload => ({
  jobId: JOB,
  eventId: 1,
  dataset: DS,
  snapshot: null,
  source: { kind: 'node', nodeId: 'node-b', dataset: COPY },
  guest: null,
  ...over,
});

let lastRunOutput = '';
async function run(content: string, jobId = JOB, source = DS, copy = COPY, file = DATA) {
  nextMinute();
  await write(file, content);
  const progress: { phase: string; percent: number; output?: string }[] = [];
  const r = await backupRun(jobContext(g, 'backup.run', `backup-job:${jobId}`, progress), runPayload(jobId, source, copy));
  lastRunOutput = progress.map((p) => p.output ?? '').join('\n');
  return r;
}

/** The copy on the backup pool holds exactly the source's job snapshots, same names and GUIDs, oldest first. */
async function expectCopyInStep(source: string, copy: string) {
  const here = await snapshots(source);
  const there = await snapshots(copy);
  expect(there.map(([n, guid]) => [n.slice(copy.length), guid])).toEqual(here.map(([n, guid]) => [n.slice(source.length), guid]));
}

const names: string[] = [];

test("a backup job's first run is full and its second incremental; the copy is received unmounted, canmount=noauto", async () => {
  const first = await run('v1');
  expect(first).toMatchObject({ mode: 'full', from: null });
  const second = await run('v2');
  expect(second).toMatchObject({ mode: 'incremental', from: first.snapshot });
  names.push(first.snapshot, second.snapshot);
  expect((await snapshots(COPY)).map(([n]) => n)).toEqual([`${COPY}@${first.snapshot}`, `${COPY}@${second.snapshot}`]);
  await expectCopyInStep(DS, COPY);
  expect(await values(g, 'mounted,canmount', COPY)).toEqual(['no', 'noauto']);
  // the copy's mountpoint is the backup pool's default for it, not the source's path
  expect((await propsWithSource(g, 'mountpoint', COPY)).mountpoint).toBe(`/${COPY} default`);
});

test('backup copies stay unmounted after zpool export/import (the backup host reboots)', async () => {
  await g.ok(['zpool', 'export', BK]);
  await g.ok(['zpool', 'import', '-d', VDEV_DIR, BK]);
  expect(await values(g, 'mounted', `${BK}/backups`)).toEqual(['yes']);
  expect(await values(g, 'mounted', COPY)).toEqual(['no']);
  // and so the next incremental still fits
  const third = await run('v3');
  expect(third).toMatchObject({ mode: 'incremental', from: names[1] });
  names.push(third.snapshot);
  await expectCopyInStep(DS, COPY);
});

test('E15 restores the newest snapshot, and the next scheduled run succeeds', async () => {
  await write(DATA, 'v4 (not backed up)');
  nextMinute();
  const r = await restoreBackup(jobContext(g, 'backup.restore', `backup-job:${JOB}`), restorePayload({}));
  expect(r).toMatchObject({ snapshot: names[2], from: 'target', warnings: [] });
  expect(await read(DATA)).toBe('v3');
  expect(await values(g, 'mounted', DS)).toEqual(['yes']);
  expect((await g.ok(['zfs', 'list', '-H', '-o', 'name', '-r', `${SRC}/jails`])).trimEnd().split('\n')).toEqual([`${SRC}/jails`, DS]);

  const next = await run('v5');
  expect(next).toMatchObject({ mode: 'incremental', from: names[2] });
  names.push(next.snapshot);
  await expectCopyInStep(DS, COPY);
});

test('E15 restores an older snapshot, and the next scheduled run succeeds (the copy follows the restored history)', async () => {
  nextMinute();
  const r = await restoreBackup(jobContext(g, 'backup.restore', `backup-job:${JOB}`), restorePayload({ snapshot: names[1] }));
  expect(r).toMatchObject({ snapshot: names[1], from: 'target' });
  expect(await read(DATA)).toBe('v2');
  // what the restore brought back: the job's snapshots up to the restored one
  expect((await snapshots(DS)).map(([n]) => n)).toEqual([`${DS}@${names[0]}`, `${DS}@${names[1]}`]);

  const next = await run('v6');
  expect(next).toMatchObject({ mode: 'incremental', from: names[1] });
  // the copy now holds the restored history: the snapshots after the restored one belonged to the history the
  // restore replaced, and the run reports that it discarded them on the target
  await expectCopyInStep(DS, COPY);
  expect(lastRunOutput).toContain(`discarded on the target, newer than ${names[1]}: ${names[2]}, ${names[3]}`);
  expect(await values(g, 'mounted,canmount', COPY)).toEqual(['no', 'noauto']);

  const after = await run('v7');
  expect(after).toMatchObject({ mode: 'incremental', from: next.snapshot });
  await expectCopyInStep(DS, COPY);
});
