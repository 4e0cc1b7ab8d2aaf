import { sql } from 'kysely';
import { scrubTaskSecrets } from '#shared/jobs/secrets';
import { finishTask, interruptStaleTasks, startTask } from '#domain/task-transitions';
import { inTransaction } from '#store/tx';
import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';
import { arrangeNode, freeGuestId, jailInv, setOnline } from './jail-setup.ts';

/** E15 POST /api/cluster/backups/jobs/{id}/restore over real HTTP: validation, conflicts, queueing. */
const path = (id: number | string) => `/cluster/backups/jobs/${id}/restore`;
const T = uid();

interface Arranged {
  jobId: number;
  runner: string;
  target: string;
  ctid: number;
}

/** A runner with a jail, a target node, and a backup job of the jail to the target (as the backup runs store it). */
async function arrange(over: { runner?: Parameters<typeof arrangeNode>[0]; sshTarget?: boolean } = {}): Promise<Arranged> {
  const ctid = await freeGuestId();
  const runner = await arrangeNode({ jails: [jailInv(ctid, { state: 'running', jid: 3 })], ...over.runner });
  const target = await arrangeNode({ ip: '198.51.100.9' });
  const row = await testDb()
    .insertInto('backup_jobs')
    .values({
      name: `restore-${T}-${ctid}`,
      mode: 'incremental',
      schedule: '',
      enabled: true,
      node_id: runner,
      source_dataset: '',
      target_endpoint: over.sshTarget ? `backup@203.0.113.5:tank/b/j${ctid}` : `${target}:tank/b/j${ctid}`,
      guest_type: 'jail',
      guest_id: ctid,
      ...(over.sshTarget
        ? {
            target_ssh_user: 'backup',
            target_ssh_host: '203.0.113.5',
            target_ssh_port: 2222,
            target_ssh_host_key: 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIFhostkeyhostkeyhostkeyhostkeyhostkeyhost',
          }
        : { target_node_id: target }),
      target_dataset: `tank/b/j${ctid}`,
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  return { jobId: row.id, runner, target, ctid };
}

const tasksOf = (jobId: number) => testDb().selectFrom('tasks').selectAll().where('resource', '=', `backup-job:${jobId}`).orderBy('id').execute();
const eventsOf = (jobId: number) => testDb().selectFrom('backup_events').selectAll().where('job_id', '=', jobId).orderBy('id').execute();

describe('E15 POST /api/cluster/backups/jobs/{id}/restore', () => {
  let operator: string;
  beforeAll(async () => {
    operator = await tokenFor('operator');
  });

  test('202 + Location: an exclusive backup.restore task on the runner and a queued restore event linked to it', async () => {
    const a = await arrange();
    const res = await call('POST', path(a.jobId), { token: operator, body: { snapshot: `zroot/jails/j${a.ctid}@hm-backup-${a.jobId}-20260102T000000Z` } });
    expectEnvelope(res, 202, 'backup_restore_queued');
    const [task] = await tasksOf(a.jobId);
    const [event] = await eventsOf(a.jobId);
    expect(res.body.data).toEqual({
      jobId: a.jobId,
      eventId: event.id,
      taskId: task.id,
      dataset: `zroot/jails/j${a.ctid}`,
      snapshot: `hm-backup-${a.jobId}-20260102T000000Z`,
      outcome: 'queued',
    });
    expect(res.headers.get('location')).toBe(`/api/tasks/${task.id}`);
    expect(task).toMatchObject({ kind: 'backup.restore', node_id: a.runner, exclusive: true, status: 'queued' });
    expect(task.payload).toEqual({
      jobId: a.jobId,
      eventId: event.id,
      dataset: `zroot/jails/j${a.ctid}`,
      snapshot: `hm-backup-${a.jobId}-20260102T000000Z`,
      source: { kind: 'node', nodeId: a.target, dataset: `tank/b/j${a.ctid}` },
      guest: { type: 'jail', id: a.ctid, name: `j${a.ctid}` },
    });
    const targetName = (await testDb().selectFrom('nodes').select('name').where('id', '=', a.target).executeTakeFirstOrThrow()).name;
    expect(event).toMatchObject({
      mode: 'restore',
      status: 'queued',
      node_id: a.runner,
      task_id: task.id,
      source_dataset: `zroot/jails/j${a.ctid}`,
      target_endpoint: `${targetName}:tank/b/j${a.ctid}`,
    });

    // the run-or-restore of the job is active: a second restore is 409 Restore Conflict, and writes nothing
    const again = await call('POST', path(a.jobId), { token: operator, body: {} });
    expectEnvelope(again, 409, 'restore_conflict');
    expect(again.body.error).toContain(`task ${task.id} (backup.restore) is queued`);
    expect(await tasksOf(a.jobId)).toHaveLength(1);
    expect(await eventsOf(a.jobId)).toHaveLength(1);
  });

  test("a guest job created through the API restores the guest's dataset, not the job's source label", async () => {
    const a = await arrange();
    const created = await call('POST', '/cluster/backups/jobs', {
      token: operator,
      body: {
        name: `api-${T}-${a.ctid}`,
        nodeId: a.runner,
        source: { guestType: 'jail', guestId: a.ctid },
        target: { nodeId: a.target, dataset: `tank/api/j${a.ctid}` },
        schedule: '0 3 * * *',
        retention: 2,
      },
    });
    expectEnvelope(created, 201, 'backup_job_created');
    const res = await call('POST', path(created.body.data.id), { token: operator, body: { snapshot: 'hm-backup-1-20260102T000000Z' } });
    expectEnvelope(res, 202, 'backup_restore_queued');
    expect(res.body.data.dataset).toBe(`zroot/jails/j${a.ctid}`);
    const [task] = await tasksOf(created.body.data.id);
    expect((task.payload as { dataset: string }).dataset).toBe(`zroot/jails/j${a.ctid}`);
  });

  test('no snapshot: the newest, resolved by the runner; an SSH target travels with its pinned key fingerprint; the key is a secret that leaves the payload', async () => {
    const a = await arrange({ sshTarget: true });
    const key = 'correct horse battery staple';
    const res = await call('POST', path(a.jobId), { token: operator, body: { encryptionKey: key, encryptionKeyFormat: 'passphrase' } });
    expectEnvelope(res, 202);
    expect(res.body.data.snapshot).toBeNull();
    expect(res.text).not.toContain(key);
    const [task] = await tasksOf(a.jobId);
    expect(task.payload).toMatchObject({
      snapshot: null,
      encryptionKey: key,
      encryptionKeyFormat: 'passphrase',
      source: {
        kind: 'ssh',
        user: 'backup',
        host: '203.0.113.5',
        port: 2222,
        dataset: `tank/b/j${a.ctid}`,
        hostKeys: [expect.stringMatching(/^SHA256:[A-Za-z0-9+/]{43}$/)],
      },
    });
    // nothing about the request that is kept holds the key: the audit log, the event
    const audit = await testDb().selectFrom('audit_log').selectAll().where('task_id', '=', task.id).execute();
    expect(audit).toHaveLength(1);
    expect(JSON.stringify(audit)).not.toContain(key);
    expect(JSON.stringify(await eventsOf(a.jobId))).not.toContain(key);
    // the task ends: its stored payload loses the key
    await testDb().updateTable('tasks').set({ status: 'failed', error: 'x', finished_at: sql<Date>`now()` }).where('id', '=', task.id).execute();
    await scrubTaskSecrets(testDb(), { id: task.id, kind: task.kind, status: 'failed' });
    const after = await testDb().selectFrom('tasks').select('payload').where('id', '=', task.id).executeTakeFirstOrThrow();
    expect(JSON.stringify(after.payload)).not.toContain(key);
  });

  test('400 per field: ZFS name rules, another dataset, key without format, key not matching its format, unknown fields', async () => {
    const a = await arrange();
    const bad = async (body: unknown, field: RegExp) => {
      const res = await call('POST', path(a.jobId), { token: operator, body });
      expectEnvelope(res, 400);
      expect(res.body.error).toMatch(field);
    };
    await bad({ snapshot: 'bad name!' }, /^body\.snapshot: must match pattern/);
    await bad({ snapshot: '' }, /^body\.snapshot: must NOT have fewer than 1 characters/);
    await bad({ snapshot: 'a'.repeat(256) }, /^body\.snapshot: must NOT have more than 255 characters/);
    await bad({ snapshot: 'a@b@c' }, /^body\.snapshot: must match pattern/);
    await bad({ snapshot: 'zroot/other@s1' }, new RegExp(`^body\\.snapshot: names dataset zroot/other, but the job restores zroot/jails/j${a.ctid}`));
    await bad({ encryptionKey: 'secretsecret' }, /^body\.encryptionKeyFormat: is required with encryptionKey/);
    await bad({ encryptionKeyFormat: 'hex' }, /^body\.encryptionKey: is required with encryptionKeyFormat/);
    await bad({ encryptionKey: 'abc', encryptionKeyFormat: 'hex' }, /^body\.encryptionKey: must be 64 hexadecimal digits/);
    await bad({ encryptionKey: 'short', encryptionKeyFormat: 'passphrase' }, /^body\.encryptionKey: must be 8–512 characters/);
    await bad({ encryptionKey: 'AAAA', encryptionKeyFormat: 'raw' }, /^body\.encryptionKey: must be 32 bytes, base64-encoded/);
    await bad({ encryptionKeyFormat: 'pem', encryptionKey: 'x'.repeat(10) }, /body\.encryptionKeyFormat: must be one of "passphrase", "hex", "raw"/);
    await bad({ other: 1 }, /body\.other: is not an accepted field/);
    const res = await call('POST', path(0), { token: operator, body: {} });
    expectEnvelope(res, 400);
    expect(res.body.error).toMatch(/^path\.id: must be >= 1/);
    // each accepted format
    for (const [format, key] of [
      ['hex', 'ab'.repeat(32)],
      ['raw', Buffer.alloc(32, 7).toString('base64')],
      ['passphrase', 'eight chars'],
    ] as const) {
      const b = await arrange();
      expectEnvelope(await call('POST', path(b.jobId), { token: operator, body: { encryptionKey: key, encryptionKeyFormat: format } }), 202);
    }
    expect(await tasksOf(a.jobId)).toHaveLength(0);
    expect(await eventsOf(a.jobId)).toHaveLength(0);
  });

  test('404 unknown job; 503 runner offline or not a member; 409 guest id taken by another guest of the cluster', async () => {
    let res = await call('POST', path(2_000_000_000), { token: operator, body: {} });
    expectEnvelope(res, 404, 'backup_job_not_found');

    const off = await arrange();
    await setOnline(off.runner, false);
    res = await call('POST', path(off.jobId), { token: operator, body: {} });
    expectEnvelope(res, 503, 'node_offline');
    expect(res.body.error).toContain(`cluster node ${off.runner}, which runs backup job ${off.jobId}, is offline`);

    const pending = await arrange();
    await testDb().updateTable('nodes').set({ status: 'pending' }).where('id', '=', pending.runner).execute();
    res = await call('POST', path(pending.jobId), { token: operator, body: {} });
    expectEnvelope(res, 503, 'node_offline');
    expect(res.body.error).toContain('pending, not a cluster member');

    // the job's guest id is a VM on another node now
    const taken = await arrange();
    await testDb().updateTable('guests').set({ node_id: taken.target }).where('id', '=', taken.ctid).execute();
    res = await call('POST', path(taken.jobId), { token: operator, body: {} });
    expectEnvelope(res, 409, 'guest_id_conflict');
    expect(res.body.error).toContain(`guest id ${taken.ctid} is taken`);
    // or another node's host reports a guest with that id
    const reported = await arrange();
    const other = await arrangeNode({ vms: [{ rid: reported.ctid }] });
    res = await call('POST', path(reported.jobId), { token: operator, body: {} });
    expectEnvelope(res, 409, 'guest_id_conflict');
    expect(res.body.error).toContain(`cluster node ${other} already has a guest with id ${reported.ctid}`);

    // a scheduled run of the job is active: Restore Conflict
    const running = await arrange();
    await testDb()
      .insertInto('tasks')
      .values({
        kind: 'host.probe',
        node_id: running.runner,
        resource: `backup-job:${running.jobId}`,
        payload: JSON.stringify({ sysctls: [] }),
        status: 'running',
        requested_by: 'scheduler',
      })
      .execute();
    expectEnvelope(await call('POST', path(running.jobId), { token: operator, body: {} }), 409, 'restore_conflict');

    for (const a of [off, pending, taken, reported, running]) expect((await tasksOf(a.jobId)).filter((t) => t.kind === 'backup.restore')).toHaveLength(0);
    for (const a of [off, pending, taken, reported, running]) expect(await eventsOf(a.jobId)).toHaveLength(0);
  });

  test('409 restore_conflict naming the task while a power action (or another exclusive task) holds the guest; after it ends, 202', async () => {
    const a = await arrange();
    const power = await call('POST', `/jail/${a.ctid}/power`, { token: operator, body: { action: 'stop' } });
    expectEnvelope(power, 202, 'jail_power_queued');
    const taskId = power.body.data.taskId as number;
    const res = await call('POST', path(a.jobId), { token: operator, body: {} });
    expectEnvelope(res, 409, 'restore_conflict');
    expect(res.body.error).toBe(`jail ${a.ctid} is busy: task ${taskId} (jail.power) is queued; restore it once that task has ended`);
    expect(await tasksOf(a.jobId)).toHaveLength(0);
    expect(await eventsOf(a.jobId)).toHaveLength(0);

    await testDb().updateTable('tasks').set({ status: 'running' }).where('id', '=', taskId).execute();
    const running = await call('POST', path(a.jobId), { token: operator, body: {} });
    expectEnvelope(running, 409, 'restore_conflict');
    expect(running.body.error).toContain(`task ${taskId} (jail.power) is running`);

    await testDb().updateTable('tasks').set({ status: 'success', finished_at: sql<Date>`now()` }).where('id', '=', taskId).execute();
    expectEnvelope(await call('POST', path(a.jobId), { token: operator, body: {} }), 202, 'backup_restore_queued');
  });

  test('the restore event follows its task: running when the runner starts it, interrupted when the runner restarts mid-task', async () => {
    const a = await arrange();
    const res = await call('POST', path(a.jobId), { token: operator, body: { encryptionKey: 'ab'.repeat(32), encryptionKeyFormat: 'hex' } });
    expectEnvelope(res, 202);
    const start = await inTransaction(testDb(), (trx) => startTask(trx, a.runner, res.body.data.taskId));
    expect(start.run).toBe(true);
    let [event] = await eventsOf(a.jobId);
    expect(event.status).toBe('running');
    expect(event.started_at).not.toBeNull();
    expect(await inTransaction(testDb(), (trx) => interruptStaleTasks(trx, a.runner))).toEqual([res.body.data.taskId]);
    [event] = await eventsOf(a.jobId);
    expect(event).toMatchObject({ status: 'interrupted', error: 'interrupted: the agent restarted while the task was running' });
    expect(event.completed_at).not.toBeNull();
    const [task] = await tasksOf(a.jobId);
    expect(task.payload).not.toHaveProperty('encryptionKey');
  });

  test('a running restore an operator cancels is recorded cancelled, as its task ends — not failed', async () => {
    const a = await arrange();
    const res = await call('POST', path(a.jobId), { token: operator, body: {} });
    expectEnvelope(res, 202);
    const taskId = res.body.data.taskId as number;
    await inTransaction(testDb(), (trx) => startTask(trx, a.runner, taskId));
    expectEnvelope(await call('POST', `/tasks/${taskId}/cancel`, { token: operator }), 202, 'task_cancel_requested');
    // the agent stops the receive and reports the cancellation, saying what it undid
    await inTransaction(testDb(), (trx) =>
      finishTask(trx, a.runner, taskId, { attempt: 1, status: 'cancelled', error: 'cancelled: zfs receive stopped; undone: nothing received' }),
    );
    const [event] = await eventsOf(a.jobId);
    expect(event).toMatchObject({ status: 'cancelled', error: 'cancelled: zfs receive stopped; undone: nothing received' });
    expect(event.completed_at).not.toBeNull();
  });

  test('401 without a token, 403 for a viewer', async () => {
    const a = await arrange();
    expectEnvelope(await call('POST', path(a.jobId), { token: null, body: {} }), 401);
    expectEnvelope(await call('POST', path(a.jobId), { token: await tokenFor('viewer'), body: {} }), 403);
    expect(await tasksOf(a.jobId)).toHaveLength(0);
  });
});
