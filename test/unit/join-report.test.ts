import { createHash } from 'node:crypto';
import { conflictDigest, conflictReport, type JoinEntry } from '#domain/cluster/join-report';

/** E16's conflict report, from entries alone (the HTTP test covers it end to end). */
const e = (guestId: number, guestType: 'jail' | 'vm', nodeId: string, recordId = 0): JoinEntry => ({
  guestId,
  guestType,
  name: `${guestType}${guestId}`,
  nodeId,
  recordId,
});

test('no conflict: null', () => {
  expect(conflictReport([e(5, 'jail', 'b')], [e(6, 'vm', 'a', 6)], new Set())).toBeNull();
  expect(conflictReport([], [e(6, 'vm', 'a', 6)], new Set([6]))).toBeNull();
});

test('a jail and a VM of the joiner with one id conflict with each other; a busy id is listed once in inFlightGuestIds', () => {
  const report = conflictReport([e(7, 'vm', 'b'), e(7, 'jail', 'b', 7), e(9999, 'jail', 'b')], [], new Set([7]))!;
  expect(report.conflicts).toEqual([
    { guestId: 7, reason: 'guest_id_in_use', entries: [e(7, 'jail', 'b', 7), e(7, 'vm', 'b')] },
    { guestId: 7, reason: 'guest_busy', entries: [e(7, 'jail', 'b', 7), e(7, 'vm', 'b')] },
  ]);
  expect(report.inFlightGuestIds).toEqual([7]);
  expect(report.entries).toEqual([e(7, 'jail', 'b', 7), e(7, 'vm', 'b')]);
});

test('entries sort by guestId, nodeId, guestType in code-unit order; the digest ignores names, record ids and input order', () => {
  const joiner = [e(20, 'jail', 'b-node'), e(-1, 'vm', 'b-node'), e(3, 'jail', 'b-node')];
  const members = [e(20, 'vm', 'B-node', 20), e(3, 'jail', 'a-node', 3)];
  const report = conflictReport(joiner, members, new Set())!;
  expect(report.entries.map((x) => [x.guestId, x.nodeId, x.guestType])).toEqual([
    [-1, 'b-node', 'vm'],
    [3, 'a-node', 'jail'],
    [3, 'b-node', 'jail'],
    [20, 'B-node', 'vm'],
    [20, 'b-node', 'jail'],
  ]);
  expect(report.conflicts.map((c) => [c.guestId, c.reason])).toEqual([
    [-1, 'invalid_guest_id'],
    [3, 'guest_id_in_use'],
    [20, 'guest_id_in_use'],
  ]);
  const canonical =
    '[{"guestId":-1,"guestType":"vm","nodeId":"b-node"},{"guestId":3,"guestType":"jail","nodeId":"a-node"},{"guestId":3,"guestType":"jail","nodeId":"b-node"},{"guestId":20,"guestType":"vm","nodeId":"B-node"},{"guestId":20,"guestType":"jail","nodeId":"b-node"}]';
  expect(report.digest).toBe(createHash('sha256').update(canonical).digest('hex'));
  const renamed = [...report.entries].reverse().map((x) => ({ ...x, name: 'other', recordId: 42 }));
  expect(conflictDigest(renamed)).toBe(report.digest);
});
