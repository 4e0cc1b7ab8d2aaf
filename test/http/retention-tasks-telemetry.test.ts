import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { insertNode, queueTask, stackQueue } from '../helpers/agent.ts';
import { pruneTasks, taskRetentionDays } from '#shared/jobs/retention';
import { maintainTelemetry, telemetryRetention } from '#domain/telemetry/retention';
import { arcSample, createHost, poolSample, sample } from './zfs-fixtures.ts';

const DAY = 86_400_000;

describe('retention of ended tasks and telemetry is bounded and configurable', () => {
  beforeAll(() => stackQueue());

  test('the bounds come from the environment; a missing value keeps the default, a bad one is refused by name', () => {
    expect(taskRetentionDays({})).toBe(90);
    expect(taskRetentionDays({ HM_TASK_RETENTION_DAYS: '14' })).toBe(14);
    expect(() => taskRetentionDays({ HM_TASK_RETENTION_DAYS: '0' })).toThrow('HM_TASK_RETENTION_DAYS="0" is not allowed: expected an integer 1–36500');
    expect(telemetryRetention({})).toEqual({ rawHours: 24, minuteDays: 7, fiveMinuteDays: 90 });
    expect(telemetryRetention({ HM_TELEMETRY_RAW_HOURS: '6', HM_TELEMETRY_MINUTE_DAYS: '2.5', HM_TELEMETRY_FIVE_MINUTE_DAYS: '' })).toEqual({
      rawHours: 6,
      minuteDays: 2.5,
      fiveMinuteDays: 90,
    });
    expect(() => telemetryRetention({ HM_TELEMETRY_FIVE_MINUTE_DAYS: 'x' })).toThrow('HM_TELEMETRY_FIVE_MINUTE_DAYS="x" is not allowed');
  });

  test('pruneTasks deletes ended tasks past the retention, never an active one nor one a setting names', async () => {
    const nodeId = await insertNode(randomUUID(), { status: 'member' });
    const make = async (status: 'success' | 'failed' | 'running', finishedDaysAgo: number) => {
      const t = await queueTask({ kind: 'host.probe', nodeId, resource: `probe:${randomUUID()}`, payload: { sysctls: [] }, dispatch: false });
      const at = new Date(Date.now() - finishedDaysAgo * DAY);
      await testDb()
        .updateTable('tasks')
        .set({ status, finished_at: status === 'running' ? null : at, updated_at: at })
        .where('id', '=', t.id)
        .execute();
      return t.id;
    };
    const oldSuccess = await make('success', 40);
    const oldFailed = await make('failed', 40);
    const oldRunning = await make('running', 40);
    const recent = await make('success', 5);
    const named = await make('success', 40);
    await testDb()
      .insertInto('tunable_settings')
      .values({ node_id: nodeId, name: 'kern.maxfiles', value: '1', type: 'int', previous_value: '', task_id: named, requested_by: 'test' })
      .execute();
    await pruneTasks(testDb(), 30);
    const left = (await testDb().selectFrom('tasks').select('id').where('id', 'in', [oldSuccess, oldFailed, oldRunning, recent, named]).execute()).map(
      (r) => r.id,
    );
    expect(left.sort((a, b) => a - b)).toEqual([oldRunning, recent, named].sort((a, b) => a - b));
  });

  test('raw telemetry older than HM_TELEMETRY_RAW_HOURS is pruned by the maintenance', async () => {
    const host = await createHost();
    const token = await tokenFor('agent', host.nodeId);
    const now = Date.now();
    const samples = [sample(now - 3 * 3_600_000, [poolSample(host.tank)], arcSample()), sample(now - 60_000, [poolSample(host.tank)], arcSample())];
    expectEnvelope(await call('POST', '/agent/telemetry', { token, body: { samples } }), 200, 'telemetry_stored');
    const count = async () =>
      Number((await sql<{ n: number }>`SELECT count(*)::int AS n FROM pool_telemetry WHERE node_id = ${host.nodeId}`.execute(testDb())).rows[0].n);
    expect(await count()).toBe(2);
    const before = process.env.HM_TELEMETRY_RAW_HOURS;
    process.env.HM_TELEMETRY_RAW_HOURS = '2';
    try {
      await maintainTelemetry(testDb(), host.nodeId, new Date(), true);
    } finally {
      if (before === undefined) delete process.env.HM_TELEMETRY_RAW_HOURS;
      else process.env.HM_TELEMETRY_RAW_HOURS = before;
    }
    expect(await count()).toBe(1);
  });
});
