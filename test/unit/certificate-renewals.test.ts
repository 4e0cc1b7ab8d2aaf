// @tier stack
import { randomUUID } from 'node:crypto';
import { testDb } from '../helpers/api.ts';
import { insertNode, stackQueue } from '../helpers/agent.ts';
import { dueRenewals, queueDueRenewals, RENEW_BEFORE_MS } from '#domain/certificates/renewals';
import { renewalBackoffMs } from '#domain/certificates/backoff';
import { applyCertificateTaskOutcome } from '#domain/certificates/outcomes';
import type { TaskOf } from '#shared/jobs/lifecycle';
import { inTransaction } from '#store/tx';

/** A SHA-256 fingerprint as the store keeps it (32 colon-separated hex bytes). */
const FINGERPRINT = Array(32).fill('AA').join(':');

/**
 * The renewal scheduler's selection (shared/domain/certificates/renewals.ts) against the store with a fake
 * clock: due 30 days before notAfter; failed renewals again once their backoff has passed; never a failed
 * initial issuance (E22's), one already queued, another type, or an inactive one.
 */
const NOW = new Date('2031-06-01T12:00:00Z');
const day = 24 * 60 * 60 * 1000;
let nodeId: string;

const cert = async (name: string, f: Record<string, unknown>) =>
  (
    await testDb()
      .insertInto('certificates')
      .values({
        node_id: nodeId,
        name,
        domain: `${name}.example.com`,
        type: 'managed',
        issuance_status: 'ready',
        fingerprint: FINGERPRINT,
        not_before: new Date(NOW.getTime() - 60 * day),
        ...f,
      } as never)
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;

beforeAll(async () => {
  nodeId = await insertNode(randomUUID());
});

// failed issuances left behind would be E22 targets for later files
afterAll(async () => {
  await testDb().deleteFrom('certificates').where('node_id', '=', nodeId).execute();
});

test('backoff: 1 h, doubling, capped at 24 h', () => {
  expect([1, 2, 3, 4, 5, 6, 40].map((n) => renewalBackoffMs(n) / 3600_000)).toEqual([1, 2, 4, 8, 16, 24, 24]);
});

test('due selection with a fake clock, then queueing: queued renewal tasks, records queued, nothing due twice', async () => {
  const ids = {
    due: await cert('due', { not_after: new Date(NOW.getTime() + RENEW_BEFORE_MS - 1000) }),
    edge: await cert('edge', { not_after: new Date(NOW.getTime() + RENEW_BEFORE_MS) }),
    later: await cert('later', { not_after: new Date(NOW.getTime() + RENEW_BEFORE_MS + 60_000) }),
    retryDue: await cert('retry-due', {
      issuance_status: 'failed',
      issuance_operation: 'renewal',
      issuance_retry_at: new Date(NOW.getTime() - 1000),
      not_after: new Date(NOW.getTime() + 5 * day),
    }),
    retryLater: await cert('retry-later', {
      issuance_status: 'failed',
      issuance_operation: 'renewal',
      issuance_retry_at: new Date(NOW.getTime() + 1000),
      not_after: new Date(NOW.getTime() + 5 * day),
    }),
    initialFailed: await cert('initial-failed', { issuance_status: 'failed', issuance_operation: 'initial', fingerprint: '', not_after: null }),
    queued: await cert('queued', { issuance_status: 'queued', issuance_operation: 'renewal', not_after: new Date(NOW.getTime() + day) }),
    imported: await cert('imported', { type: 'imported', not_after: new Date(NOW.getTime() + day) }),
    inactive: await cert('inactive', { active: false, not_after: new Date(NOW.getTime() + day) }),
  };
  const mine = async () =>
    (await dueRenewals(testDb(), NOW))
      .filter((r) => r.node_id === nodeId)
      .map((r) => r.id)
      .sort((a, b) => a - b);
  expect(await mine()).toEqual([ids.due, ids.edge, ids.retryDue].sort((a, b) => a - b));

  stackQueue();
  const queued = (await queueDueRenewals(testDb(), NOW)).filter((id) => Object.values(ids).includes(id));
  expect(queued.sort((a, b) => a - b)).toEqual([ids.due, ids.edge, ids.retryDue].sort((a, b) => a - b));
  expect(await mine()).toEqual([]);
  const tasks = await testDb().selectFrom('tasks').selectAll().where('node_id', '=', nodeId).where('kind', '=', 'certificate.issue').execute();
  expect(tasks.map((t) => t.resource).sort()).toEqual(queued.map((id) => `certificate:${id}`).sort());
  expect(tasks.every((t) => (t.payload as { operation: string }).operation === 'renewal' && t.exclusive)).toBe(true);
  const rec = await testDb().selectFrom('certificates').selectAll().where('id', '=', ids.due).executeTakeFirstOrThrow();
  expect(rec).toMatchObject({ issuance_status: 'queued', issuance_operation: 'renewal', fingerprint: FINGERPRINT });
});

test('a failed renewal backs off (issuanceRetryAt), raises certificate_expiring and keeps the installed certificate', async () => {
  const id = await cert('renew-fails', {
    issuance_status: 'queued',
    issuance_operation: 'renewal',
    issuance_failures: 2,
    not_after: new Date(NOW.getTime() + 3 * day),
  });
  const task = await testDb()
    .insertInto('tasks')
    .values({
      kind: 'certificate.issue',
      node_id: nodeId,
      resource: `certificate:${id}`,
      payload: JSON.stringify({
        certificateId: id,
        name: 'renew-fails',
        domain: 'renew-fails.example.com',
        directoryUrl: 'https://acme.invalid/dir',
        operation: 'renewal',
      }),
      requested_by: 'test',
      status: 'failed',
      error: 'ACME issuance failed: rateLimited',
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  await inTransaction(testDb(), (trx) => applyCertificateTaskOutcome(trx, task as TaskOf<'certificate.issue'>, NOW));
  const row = await testDb().selectFrom('certificates').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  expect(row).toMatchObject({ issuance_status: 'failed', issuance_error: 'ACME issuance failed: rateLimited', issuance_failures: 3, fingerprint: FINGERPRINT });
  expect(row.issuance_retry_at?.toISOString()).toBe(new Date(NOW.getTime() + 4 * 3600_000).toISOString());
  const notes = await testDb().selectFrom('notifications').select(['kind', 'severity']).where('node_id', '=', nodeId).execute();
  expect(notes).toEqual([{ kind: 'certificate_expiring', severity: 'warning' }]);
});
