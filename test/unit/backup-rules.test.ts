import { nextRunAfter, scheduleProblem } from '#domain/backups/schedule';
import { datasetProblem, hostKeyFingerprint, normalHostKey } from '#domain/backups/rules';
import { beyondRetention, newestCommon } from '#agent/drivers/zfs/backup-snapshots';
import { modeOf } from '#domain/backups/run-events';

/** The rules of backup jobs that need no host: schedules, dataset names, host keys, common snapshots, retention. */

test('the schedule: 5-field cron and nicknames in UTC; the next slot is strictly after the given time', () => {
  expect(nextRunAfter('*/5 * * * *', new Date('2026-03-01T10:02:30Z'))!.toISOString()).toBe('2026-03-01T10:05:00.000Z');
  expect(nextRunAfter('*/5 * * * *', new Date('2026-03-01T10:05:00Z'))!.toISOString()).toBe('2026-03-01T10:10:00.000Z');
  expect(nextRunAfter('30 2 * * 0', new Date('2026-03-02T00:00:00Z'))!.toISOString()).toBe('2026-03-08T02:30:00.000Z');
  expect(nextRunAfter('@daily', new Date('2026-03-01T10:00:00Z'))!.toISOString()).toBe('2026-03-02T00:00:00.000Z');
  expect(scheduleProblem('0 3 * * *')).toBeUndefined();
  expect(scheduleProblem('0 3 * *')).toMatch(/5 fields/);
  expect(scheduleProblem('0 0 3 * * *')).toMatch(/5 fields/);
  expect(scheduleProblem('99 * * * *')).toMatch(/not a valid cron expression: .*minute/);
  expect(scheduleProblem('  ')).toMatch(/must be a cron expression/);
});

test('dataset names follow ZFS: pool/child, no snapshot or bookmark part, no empty or dot components', () => {
  for (const ok of ['tank', 'tank/vm/web01', 'zroot/usr/src', 'vault/fbsd-01/jails/101', 'tank/a.b:c_d-e']) expect(datasetProblem(ok)).toBeUndefined();
  for (const bad of ['tank/vm@snap', 'tank#book', '/tank', 'tank/', 'tank//x', 'tank/./x', 'tank/../x', '1tank/x', 'tank/a b', `tank/${'x'.repeat(260)}`])
    expect(datasetProblem(bad)).toBeDefined();
});

test('host keys: known_hosts form, normalised without a comment; the fingerprint is ssh-keygen -l’s SHA256', () => {
  const blob = Buffer.concat([Buffer.from([0, 0, 0, 11]), Buffer.from('ssh-ed25519'), Buffer.from([0, 0, 0, 32]), Buffer.alloc(32, 1)]);
  const key = `ssh-ed25519 ${blob.toString('base64')}`;
  expect(normalHostKey(`${key} root@host`)).toBe(key);
  expect(normalHostKey('ssh-rsa AAAAC3NzaC1lZDI1NTE5AAAAIA')).toEqual({ problem: expect.stringMatching(/not a ssh-rsa key/) });
  expect(normalHostKey('ssh-ed25519')).toEqual({ problem: expect.stringMatching(/<type> <base64>/) });
  expect(normalHostKey('ssh-ed25519 !!!')).toEqual({ problem: expect.stringMatching(/not base64/) });
  expect(hostKeyFingerprint(key)).toMatch(/^SHA256:[A-Za-z0-9+/]{43}$/);
});

test('the newest common snapshot is the job’s own, matched by name and GUID; retention never counts others’', () => {
  const s = (name: string, guid = `g-${name}`) => ({ name, guid });
  const here = [
    s('manual'),
    s('hm-backup-7-20260101T000000Z'),
    s('hm-backup-7-20260102T000000Z'),
    s('hm-backup-8-20260103T000000Z'),
    s('hm-backup-7-20260104T000000Z'),
  ];
  // the target has the first two of job 7; the second was re-created there (another GUID): not common
  const there = [s('manual'), s('hm-backup-7-20260101T000000Z'), s('hm-backup-7-20260102T000000Z', 'other'), s('hm-backup-8-20260103T000000Z')];
  expect(newestCommon(7, here, there)).toBe('hm-backup-7-20260101T000000Z');
  expect(newestCommon(8, here, there)).toBe('hm-backup-8-20260103T000000Z');
  expect(newestCommon(9, here, there)).toBeNull();
  expect(beyondRetention(7, here, 2)).toEqual(['hm-backup-7-20260101T000000Z']);
  expect(beyondRetention(7, here, 3)).toEqual([]);
  expect(beyondRetention(7, [...here, s('hm-backup-7-junk')], 1)).toEqual(['hm-backup-7-20260101T000000Z', 'hm-backup-7-20260102T000000Z']);
});

test('an event’s mode is the one the agent reported', () => {
  expect(modeOf('zfs snapshot -r a@b\nmode: incremental\nsend …')).toBe('incremental');
  expect(modeOf('mode: full\n')).toBe('full');
  expect(modeOf('no mode yet')).toBe('');
});
