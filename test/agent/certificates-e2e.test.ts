import { createPrivateKey, X509Certificate } from 'node:crypto';
import { connect } from 'node:net';
import { sql } from 'kysely';
import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { startTestAgent, waitForTask, type TestAgent } from '../helpers/agent.ts';
import { startPebble, type Pebble } from '../helpers/pebble.ts';
import { HostSimulator } from '#simulator/simulator';
import type { SimFile } from '#simulator/file-tree';
import { PEBBLE_PORTS, pebbleCaFile } from '#scripts/stack/acme-test-server';

/** SHA-256 fingerprints as the store keeps them (32 colon-separated hex bytes), for rows the tests write themselves. */
const FINGERPRINT_A = Array(32).fill('AA').join(':');
const FINGERPRINT_B = Array(32).fill('AB').join(':');

/**
 * Managed certificates end to end against a real ACME server: HTTP → certificate record + certificate.issue
 * task → queue → agent process → ACME order at pebble, whose VA fetches the HTTP-01 token from the agent's
 * responder on loopback → certificate and key installed on the simulated host → fingerprint in the store.
 * E22: 502 while the ACME server is down; a refused validation (the name resolves to a loopback address where
 * nothing answers) fails with pebble's problem detail, then E22 after the name is fixed issues it; 404/409.
 */
let agent: TestAgent;
let pebble: Pebble | undefined;
let sim: HostSimulator;
let operator: string;

const hostFile = (path: string) => sim.state((s) => ((s as { files?: Record<string, SimFile> }).files ?? {})[path] ?? null);
const certRow = (id: number) => testDb().selectFrom('certificates').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
const create = (name: string, domain: string) =>
  call('POST', '/certificates', { body: { name, domain, type: 'managed', nodeId: agent.nodeId }, token: operator });
// the agent's HTTP-01 responder listens only while an issuance has a challenge out
const responderListening = () =>
  new Promise<boolean>((resolve) => {
    const socket = connect(PEBBLE_PORTS.http01, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
const retry = (id: number | string) => call('POST', `/certificates/${id}/retry`, { token: operator });
const insertCert = async (fields: Record<string, unknown>) =>
  (
    await testDb()
      .insertInto('certificates')
      .values({
        node_id: agent.nodeId,
        name: `c-${Math.random().toString(36).slice(2, 8)}`,
        domain: 'x.example.com',
        type: 'managed',
        issuance_status: 'failed',
        issuance_error: 'earlier failure',
        ...fields,
      } as never)
      .returning('id')
      .executeTakeFirstOrThrow()
  ).id;

beforeAll(async () => {
  operator = await tokenFor('operator');
  agent = await startTestAgent({ env: { HM_ACME_HTTP_PORT: String(PEBBLE_PORTS.http01), HM_ACME_HTTP_HOST: '127.0.0.1', HM_ACME_CA_FILE: pebbleCaFile() } });
  await agent.ready();
  sim = new HostSimulator({ statePath: agent.statePath });
}, 60_000);

afterAll(async () => {
  // failed initial issuances left behind would be E22 targets for later files, whose ACME server is down
  if (agent) await testDb().deleteFrom('certificates').where('node_id', '=', agent.nodeId).execute();
  await pebble?.stop();
  await agent?.stop();
});

test('E22: 502 acme_unreachable when the ACME directory does not answer; the certificate stays failed', async () => {
  const id = await insertCert({});
  const res = await retry(id);
  expectEnvelope(res, 502, 'acme_unreachable');
  expect(res.body.error).toContain(`127.0.0.1:${PEBBLE_PORTS.acme}/dir`);
  expect(await certRow(id)).toMatchObject({ issuance_status: 'failed', issuance_error: 'earlier failure' });
  expect(await testDb().selectFrom('tasks').select('id').where('resource', '=', `certificate:${id}`).execute()).toEqual([]);
});

describe('with pebble running', () => {
  beforeAll(async () => {
    pebble = await startPebble();
  }, 60_000);

  test('a managed certificate is issued through the agent: pebble validates HTTP-01, the fingerprint matches the host’s file', async () => {
    const res = await create('www', 'www.example.com');
    expectEnvelope(res, 201, 'certificate_created');
    expect(res.body.data).toMatchObject({
      name: 'www',
      domain: 'www.example.com',
      type: 'managed',
      issuanceStatus: 'queued',
      issuanceOperation: 'initial',
      pending: true,
      ready: false,
      fingerprint: '',
    });
    const task = await waitForTask(res.body.data.taskId, ['success', 'failed'], 60_000);
    expect(task.error).toBe('');
    expect(task.status).toBe('success');

    const got = await call('GET', `/certificates/${res.body.data.id}`, { token: await tokenFor('viewer') });
    expectEnvelope(got, 200, 'certificate_found');
    const rec = got.body.data;
    expect(rec).toMatchObject({ issuanceStatus: 'ready', ready: true, pending: false, renewable: true, issuanceError: '', issuanceRetryAt: '' });

    const crt = await hostFile('/usr/local/etc/ssl/hostmgr/www.crt');
    const key = await hostFile('/usr/local/etc/ssl/hostmgr/www.key');
    expect(crt?.mode).toBe('600');
    expect(key?.mode).toBe('600');
    const x = new X509Certificate(crt!.content);
    expect(rec.fingerprint).toBe(x.fingerprint256);
    expect(rec.fingerprint).toMatch(/^([0-9A-F]{2}:){31}[0-9A-F]{2}$/);
    expect(x.subjectAltName).toContain('DNS:www.example.com');
    expect(x.checkPrivateKey(createPrivateKey(key!.content))).toBe(true);
    expect(createPrivateKey(key!.content).asymmetricKeyDetails).toMatchObject({ namedCurve: 'prime256v1' });
    expect(rec.notAfter).toBe(new Date(x.validTo).toISOString());
    expect(rec.notBefore).toBe(new Date(x.validFrom).toISOString());
    // the account key stays on the host; no key reaches the task row
    const files = await sim.state((s) =>
      Object.entries((s as { files?: Record<string, SimFile> }).files ?? {}).filter(([p]) => p.startsWith('/var/db/hostmgr/acme/')),
    );
    expect(files.map(([p, f]) => [p.replace(/[0-9a-f]{16}/, 'H'), f.mode])).toEqual([
      ['/var/db/hostmgr/acme/account-H.key', '600'],
      ['/var/db/hostmgr/acme/account-H.url', '600'],
    ]);
    expect(files[0][1].content).toMatch(/^-----BEGIN PRIVATE KEY-----/);
    expect(files[1][1].content).toMatch(new RegExp(`^https://127\\.0\\.0\\.1:${PEBBLE_PORTS.acme}/my-account/`));
    expect(JSON.stringify(await waitForTask(task.id, ['success']))).not.toContain('PRIVATE KEY');
    expect(await hostFile('/usr/local/etc/ssl/hostmgr/www.crt.hostmgr-new')).toBeNull();
    expect(await responderListening()).toBe(false);
  }, 90_000);

  test('a refused validation fails with pebble’s problem detail; E22 then issues it', async () => {
    await pebble!.setA('refused.example.com', ['127.0.0.2']);
    const res = await create('refused', 'refused.example.com');
    expectEnvelope(res, 201);
    const task = await waitForTask(res.body.data.taskId, ['success', 'failed'], 60_000);
    expect(task.status).toBe('failed');
    const failed = await certRow(res.body.data.id);
    expect(failed.issuance_status).toBe('failed');
    expect(failed.issuance_error).toContain('127.0.0.2');
    expect(failed.issuance_error).toMatch(/connection refused/i);
    expect(failed.issuance_retry_at).toBeNull();
    const notes = await testDb()
      .selectFrom('notifications')
      .select(['kind', 'body'])
      .where('kind', '=', 'certificate_failed')
      .where('node_id', '=', agent.nodeId)
      .execute();
    expect(notes).toEqual([{ kind: 'certificate_failed', body: failed.issuance_error }]);
    // a failed validation withdraws its challenge too: the responder closed with it
    expect(await responderListening()).toBe(false);

    await pebble!.clearA('refused.example.com');
    const key = { 'idempotency-key': `e22-${res.body.data.id}-${Date.now()}` };
    const again = await call('POST', `/certificates/${res.body.data.id}/retry`, { token: operator, headers: key });
    expectEnvelope(again, 202, 'certificate_issuance_queued');
    expect(again.body.data).toMatchObject({ id: res.body.data.id, issuanceStatus: 'queued', issuanceOperation: 'initial', issuanceError: '', pending: true });
    const location = again.headers.get('location')!;
    expect(location).toMatch(/^\/api\/tasks\/\d+$/);
    // an issuance queued or running: E22 again is 409
    const busy = await retry(res.body.data.id);
    if (busy.status !== 409) expect(busy.body).toBeUndefined();
    expect(['certificate_issuance_active', 'certificate_already_issued']).toContain(busy.body.message);
    const done = await waitForTask(Number(location.split('/').pop()), ['success', 'failed'], 60_000);
    expect(done.error).toBe('');
    expect(done.status).toBe('success');
    const ready = await certRow(res.body.data.id);
    expect(ready).toMatchObject({ issuance_status: 'ready', issuance_error: '', issuance_failures: 0 });
    const crt = await hostFile('/usr/local/etc/ssl/hostmgr/refused.crt');
    expect(ready.fingerprint).toBe(new X509Certificate(crt!.content).fingerprint256);

    const issued = await retry(res.body.data.id);
    expectEnvelope(issued, 409, 'certificate_already_issued');
    // the first retry's Idempotency-Key repeated: its task again, not the state check's 409
    const repeated = await call('POST', `/certificates/${res.body.data.id}/retry`, { token: operator, headers: key });
    expectEnvelope(repeated, 202, 'certificate_issuance_queued');
    expect(repeated.headers.get('location')).toBe(location);
  }, 120_000);
});

test('E22: 404 unknown, 400 bad id, 409 not managed / issuance active / already issued, 403 viewer', async () => {
  expectEnvelope(await retry(2147483000), 404, 'certificate_not_found');
  const bad = await retry(0);
  expectEnvelope(bad, 400, 'validation_failed');
  expect(bad.body.error).toContain('id');
  expectEnvelope(await retry('abc'), 400, 'validation_failed');
  expectEnvelope(await retry(await insertCert({ type: 'imported', issuance_status: 'ready', fingerprint: FINGERPRINT_A })), 409, 'certificate_not_managed');
  const queued = await insertCert({ issuance_status: 'queued' });
  const holder = await testDb()
    .insertInto('tasks')
    .values({
      kind: 'certificate.issue',
      node_id: agent.nodeId,
      resource: `certificate:${queued}`,
      exclusive: true,
      status: 'running',
      // a payload of its kind: anything that ends this task reads it as one (shared/jobs/task-of-kind.ts)
      payload: JSON.stringify({
        certificateId: queued,
        name: 'held',
        domain: 'held.example.com',
        directoryUrl: 'https://acme.invalid/dir',
        operation: 'initial',
      }),
      requested_by: 'test',
    })
    .returning('id')
    .executeTakeFirstOrThrow();
  const active = await retry(queued);
  expectEnvelope(active, 409, 'certificate_issuance_active');
  expect(active.body.error).toContain(`task ${holder.id} is running`);
  // while its task runs, the record follows the agent's phase
  const view = async () => (await call('GET', `/certificates/${queued}`, { token: await tokenFor('viewer') })).body.data.issuanceStatus;
  expect(await view()).toBe('submitting');
  await testDb().updateTable('tasks').set({ phase: 'processing' }).where('id', '=', holder.id).execute();
  expect(await view()).toBe('processing');
  await testDb().updateTable('tasks').set({ status: 'interrupted' }).where('id', '=', holder.id).execute();
  const renewal = await insertCert({ issuance_operation: 'renewal', fingerprint: FINGERPRINT_B, not_after: sql`now() + interval '10 days'` });
  const r = await retry(renewal);
  expectEnvelope(r, 409, 'certificate_already_issued');
  expect(r.body.error).toContain(`certificate ${renewal}`);
  expectEnvelope(await call('POST', `/certificates/${renewal}/retry`, { token: await tokenFor('viewer') }), 403);
  // a body, even empty JSON, is accepted and ignored
  expectEnvelope(await call('POST', `/certificates/${renewal}/retry`, { token: operator, rawBody: '' }), 409, 'certificate_already_issued');
});

test('create: 400 naming the field, 409 for a name taken on the node', async () => {
  const bad = await call('POST', '/certificates', { body: { name: 'x', domain: 'not a domain', type: 'managed', nodeId: agent.nodeId }, token: operator });
  expectEnvelope(bad, 400, 'validation_failed');
  expect(bad.body.error).toContain('domain');
  const noPem = await call('POST', '/certificates', {
    body: { name: 'imp', domain: 'imp.example.com', type: 'imported', nodeId: agent.nodeId },
    token: operator,
  });
  expectEnvelope(noPem, 400, 'validation_failed');
  expect(noPem.body.error).toContain('certificatePem');
  const name = `dup${Math.random().toString(36).slice(2, 6)}`;
  await insertCert({ name });
  expectEnvelope(
    await call('POST', '/certificates', { body: { name, domain: 'dup.example.com', type: 'managed', nodeId: agent.nodeId }, token: operator }),
    409,
    'certificate_name_taken',
  );
  const list = await call('GET', `/certificates?nodeId=${agent.nodeId}&size=100`, { token: await tokenFor('viewer') });
  expectEnvelope(list, 200, 'certificates_listed');
  expect(list.body.data.data.map((c: { name: string }) => c.name)).toContain(name);
});
