import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { queueTask } from '../helpers/agent.ts';
import { rotateClusterKey } from '#domain/cluster/key';
import { arrangeNode, freeGuestId, guestRow, jailInv } from './jail-setup.ts';

// the test stack advertises the loopback address it serves on (scripts/stack/stack.ts)
const LEADER = '127.0.0.1';

/** Guest ids no row uses, distinct from each other. */
async function freeIds(n: number): Promise<number[]> {
  const ids = new Set<number>();
  while (ids.size < n) ids.add(await freeGuestId());
  return [...ids];
}

const nodeRow = (id: string) => testDb().selectFrom('nodes').selectAll().where('id', '=', id).executeTakeFirstOrThrow();

describe('E16 POST /api/cluster/join', () => {
  let admin: string;
  let key: string;
  const join = (body: Record<string, unknown>, token = admin) => call('POST', '/cluster/join', { token, body });

  beforeAll(async () => {
    admin = await tokenFor('admin');
    key = await rotateClusterKey(testDb());
  });

  test('admits a pending node: 200 with the node record, a member in the nodes list, its guests become cluster guests; re-joining is a no-op 200', async () => {
    const [a, b, held] = await freeIds(3);
    // another pending node reported `held` first: a provisional row, which the joiner's report takes over
    const other = await arrangeNode({ status: 'pending', jails: [jailInv(held)] });
    const node = await arrangeNode({ status: 'pending', ip: '198.51.100.31', jails: [jailInv(a), jailInv(b, { name: 'web' }), jailInv(held)] });
    expect((await guestRow(held))!.node_id).toBe(other);
    const viewer = await tokenFor('viewer');
    expect((await call('GET', `/cluster/nodes/${node}`, { token: viewer })).body.data.status).toBe('pending');

    const res = await join({ clusterKey: key, leaderIp: LEADER, nodeId: node, nodeIp: '198.51.100.31' });
    expectEnvelope(res, 200, 'cluster_joined');
    expect(res.body.data).toMatchObject({ id: node, ip: '198.51.100.31', status: 'member', online: true });
    expect(res.body.data).not.toHaveProperty('inventory');

    const listed = await call('GET', '/cluster/nodes?status=member&size=100', { token: viewer });
    expectEnvelope(listed, 200);
    const pages = Number(listed.body.data.last_page);
    const members = [listed.body.data.data];
    for (let p = 2; p <= pages; p++) members.push((await call('GET', `/cluster/nodes?status=member&size=100&page=${p}`, { token: viewer })).body.data.data);
    expect(members.flat().find((n: { id: string }) => n.id === node)).toMatchObject({ status: 'member' });
    expect((await call('GET', `/cluster/nodes/${node}`, { token: viewer })).body.data.status).toBe('member');

    for (const id of [a, b, held]) expect(await guestRow(id)).toMatchObject({ id, type: 'jail', node_id: node });
    expect((await guestRow(b))!.name).toBe('web');

    const before = await nodeRow(node);
    const again = await join({ clusterKey: key, leaderIp: LEADER, nodeId: node, nodeIp: '198.51.100.31' });
    expectEnvelope(again, 200, 'cluster_already_member');
    expect(again.body.data).toEqual(res.body.data);
    expect((await nodeRow(node)).updated_at).toEqual(before.updated_at);

    // the audit rows name the admitted node, never the key
    const rows = await testDb()
      .selectFrom('audit_log')
      .selectAll()
      .where('route', '=', '/api/cluster/join')
      .where('resource', '=', `node:${node}`)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.method, r.status, r.role])).toEqual([
      ['POST', 200, 'admin'],
      ['POST', 200, 'admin'],
    ]);
    expect(JSON.stringify(rows)).not.toContain(key);
  });

  test('409 with the conflict report (shared, invalid and busy guest ids); the digest recomputed here; nothing changes', async () => {
    const [shared, sharedVm, busy, fine] = await freeIds(4);
    const member = await arrangeNode({ jails: [jailInv(shared, { name: 'db' })] });
    const vmHolder = await arrangeNode({ vms: [{ rid: sharedVm }] });
    // the joiner reports a jail whose id a member holds, a VM whose RID another member's host reports, a VM with
    // RID 0 and one above 9999, a jail with a queued task and one without a conflict
    const joiner = await arrangeNode({
      status: 'pending',
      ip: '198.51.100.32',
      jails: [jailInv(shared, { name: 'pg' }), jailInv(busy, { name: 'ci' }), jailInv(fine, { name: 'ok' })],
      vms: [{ rid: 0 }, { rid: 10000 }, { rid: sharedVm }],
    });
    await queueTask({
      kind: 'jail.apply-hooks',
      nodeId: joiner,
      resource: `jail:${busy}`,
      payload: { ctid: busy, name: 'ci', hooks: jailInv(busy).hooks },
      dispatch: false,
    });
    const guestsBefore = await testDb().selectFrom('guests').selectAll().where('id', 'in', [shared, sharedVm, busy, fine]).orderBy('id').execute();
    const nodeBefore = await nodeRow(joiner);

    const res = await join({ clusterKey: key, leaderIp: LEADER, nodeId: joiner, nodeIp: '198.51.100.32' });
    expectEnvelope(res, 409, 'cluster_join_conflict');
    const report = res.body.data;

    const e = (guestId: number, guestType: string, name: string, nodeId: string, recordId: number) => ({ guestId, guestType, name, nodeId, recordId });
    const memberDb = e(shared, 'jail', 'db', member, shared);
    const joinerPg = e(shared, 'jail', 'pg', joiner, 0); // the member holds the row: the joiner's jail is only reported
    const joinerCi = e(busy, 'jail', 'ci', joiner, busy);
    const vm0 = e(0, 'vm', '', joiner, 0);
    const vmBig = e(10000, 'vm', '', joiner, 0);
    const joinerVm = e(sharedVm, 'vm', '', joiner, 0);
    const holderVm = e(sharedVm, 'vm', '', vmHolder, 0);
    const pair = <T>(x: T, y: T, xFirst: boolean) => (xFirst ? [x, y] : [y, x]);
    const sharedPair = pair(memberDb, joinerPg, member < joiner);
    const vmPair = pair(holderVm, joinerVm, vmHolder < joiner);
    const expectedConflicts = [
      { guestId: 0, reason: 'invalid_guest_id', entries: [vm0] },
      { guestId: shared, reason: 'guest_id_in_use', entries: sharedPair },
      { guestId: sharedVm, reason: 'guest_id_in_use', entries: vmPair },
      { guestId: busy, reason: 'guest_busy', entries: [joinerCi] },
      { guestId: 10000, reason: 'invalid_guest_id', entries: [vmBig] },
    ].sort((x, y) => x.guestId - y.guestId);
    expect(report.conflicts).toEqual(expectedConflicts);
    expect(report.inFlightGuestIds).toEqual([busy]);
    const entries = [vm0, ...sharedPair, ...vmPair, joinerCi, vmBig].sort(
      (x, y) => x.guestId - y.guestId || (x.nodeId < y.nodeId ? -1 : x.nodeId > y.nodeId ? 1 : 0),
    );
    expect(report.entries).toEqual(entries);
    expect(Object.keys(report).sort()).toEqual(['conflicts', 'digest', 'entries', 'inFlightGuestIds']);

    // the digest, independently: SHA-256 of the canonical JSON (sorted keys, no spaces) of the sorted {nodeId, guestType, guestId} list
    const canonical = `[${entries.map((x) => `{"guestId":${x.guestId},"guestType":"${x.guestType}","nodeId":"${x.nodeId}"}`).join(',')}]`;
    expect(report.digest).toBe(createHash('sha256').update(canonical).digest('hex'));
    expect(report.digest).toMatch(/^[0-9a-f]{64}$/);

    // nothing changed
    expect(await nodeRow(joiner)).toEqual(nodeBefore);
    expect(await testDb().selectFrom('guests').selectAll().where('id', 'in', [shared, sharedVm, busy, fine]).orderBy('id').execute()).toEqual(guestsBefore);
  });

  test('403 on a wrong key (nothing changes, the key reaches neither the audit log nor the log); 409 another leader or node address; 404 unknown node; 400 bad addresses', async () => {
    const node = await arrangeNode({ status: 'pending', ip: '198.51.100.33' });
    const wrong = `${key.slice(0, -2)}xx`;
    let res = await join({ clusterKey: wrong, leaderIp: LEADER, nodeId: node, nodeIp: '198.51.100.33' });
    expectEnvelope(res, 403, 'cluster_key_mismatch');
    expect(res.body.data).toBeNull();
    expect(JSON.stringify(res.body)).not.toContain(wrong);
    expect((await nodeRow(node)).status).toBe('pending');

    res = await join({ clusterKey: key, leaderIp: '198.51.100.1', nodeId: node, nodeIp: '198.51.100.33' });
    expectEnvelope(res, 409, 'leader_ip_mismatch');
    expect(res.body.error).toContain(`advertised address ${LEADER}`);
    res = await join({ clusterKey: key, leaderIp: LEADER, nodeId: node, nodeIp: '198.51.100.34' });
    expectEnvelope(res, 409, 'node_ip_mismatch');
    expect(res.body.error).toContain('198.51.100.33');
    res = await join({ clusterKey: key, leaderIp: LEADER, nodeId: '00000000-0000-4000-8000-000000000000', nodeIp: '198.51.100.33' });
    expectEnvelope(res, 404, 'cluster_node_not_found');

    res = await join({ clusterKey: key, leaderIp: 'leader.example.org', nodeId: node, nodeIp: '198.51.100' });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('body.leaderIp: must be an IPv4 or IPv6 address literal');
    expect(res.body.error).toContain('body.nodeIp: must be an IPv4 or IPv6 address literal');
    res = await join({ leaderIp: LEADER, nodeId: node, nodeIp: '198.51.100.33' });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain('clusterKey');
    expectEnvelope(await join({ clusterKey: key, leaderIp: LEADER, nodeId: node, nodeIp: '198.51.100.33' }, await tokenFor('operator')), 403, 'forbidden');
    expect((await nodeRow(node)).status).toBe('pending');

    // the key is a secret: no audit row and no log line holds it (right or wrong)
    const audit = await testDb().selectFrom('audit_log').selectAll().where('route', '=', '/api/cluster/join').execute();
    expect(audit.length).toBeGreaterThanOrEqual(1);
    expect(JSON.stringify(audit)).not.toContain(key);
    expect(JSON.stringify(audit)).not.toContain(wrong);
    // each attempt whose body passed the schema names the node it was for (the addresses are the handler's
    // 400); the one the schema refused (no clusterKey) and the operator's 403 name none
    const forNode = audit.filter((r) => r.resource === `node:${node}`);
    expect(forNode.map((r) => r.status).sort()).toEqual([400, 403, 409, 409]);
    expect(forNode.every((r) => r.token_name !== '' && r.role === 'admin')).toBe(true);
    const log = readFileSync(`${process.env.HM_TEST_LOG_DIR}/offline.log`, 'utf8');
    expect(log).toContain('/api/cluster/join');
    expect(log).not.toContain(key);
    expect(log).not.toContain(wrong);
    // and the store holds only its hash
    const settings = await testDb().selectFrom('cluster_settings').selectAll().execute();
    expect(settings).toEqual([{ id: true, key_hash: createHash('sha256').update(key).digest('hex'), key_rotated_at: expect.any(Date) }]);
  });

  test('E20: a pending node is refused as a migration target, and accepted once it has joined', async () => {
    const operator = await tokenFor('operator');
    const [j] = await freeIds(1);
    await arrangeNode({ jails: [jailInv(j, { state: 'running', jid: 3 })] });
    const target = await arrangeNode({ status: 'pending', ip: '198.51.100.35' });
    const migrate = () => call('POST', `/jail/${j}/migrations`, { token: operator, body: { targetNodeUuid: target } });

    expectEnvelope(await migrate(), 409, 'node_not_member');
    expectEnvelope(await join({ clusterKey: key, leaderIp: LEADER, nodeId: target, nodeIp: '198.51.100.35' }), 200, 'cluster_joined');
    const res = await migrate();
    expectEnvelope(res, 202, 'jail_migration_queued');
    const task = await testDb().selectFrom('tasks').selectAll().where('id', '=', res.body.data.taskId).executeTakeFirstOrThrow();
    expect(task.payload).toMatchObject({ ctid: j, target: { nodeId: target, address: '198.51.100.35' } });
  });
});
