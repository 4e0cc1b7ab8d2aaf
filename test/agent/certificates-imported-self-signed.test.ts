import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { startTestAgent, waitForTask, type TestAgent } from '../helpers/agent.ts';
import { HostSimulator } from '#simulator/simulator';
import type { SimFile } from '#simulator/file-tree';

/**
 * Imported and self-signed certificates end to end: HTTP → checked record + certificate.install /
 * certificate.self-sign task → queue → agent process → files on the simulated host (0600) → the store's
 * fingerprint is the installed file's. The imported private key reaches the agent as a task secret only: it is
 * in no response, no audit row, no agent log, and not in the task row once the task ended. The PEMs are made
 * here with the openssl CLI (a CA and a leaf it signs), independent of the code under test.
 */
let agent: TestAgent;
let sim: HostSimulator;
let operator: string;
let dir: string;

const hostFile = (path: string) => sim.state((s) => ((s as { files?: Record<string, SimFile> }).files ?? {})[path] ?? null);
const create = (body: Record<string, unknown>) => call('POST', '/certificates', { body: { nodeId: agent.nodeId, ...body }, token: operator });
const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
const read = (f: string) => readFileSync(join(dir, f), 'utf8');

/** an EC P-256 key and a certificate for `cn` (+ SANs) signed by the test CA, valid `days` (-1: expired yesterday) */
function leaf(name: string, cn: string, sans: string[], days = 30): { crt: string; key: string } {
  openssl('ecparam', '-name', 'prime256v1', '-genkey', '-noout', '-out', `${name}.key`);
  openssl('req', '-new', '-key', `${name}.key`, '-subj', `/CN=${cn}`, '-out', `${name}.csr`);
  const ext = join(dir, `${name}.ext`);
  execFileSync('sh', ['-c', `printf 'subjectAltName=%s\\n' "$1" > "$2"`, 'sh', sans.map((s) => `DNS:${s}`).join(','), ext]);
  openssl(
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    'ca.crt',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-days',
    String(days),
    '-extfile',
    ext,
    '-out',
    `${name}.crt`,
  );
  return { crt: read(`${name}.crt`), key: read(`${name}.key`) };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'hm-certs-'));
  openssl(
    'req',
    '-x509',
    '-newkey',
    'ec',
    '-pkeyopt',
    'ec_paramgen_curve:P-256',
    '-nodes',
    '-keyout',
    'ca.key',
    '-out',
    'ca.crt',
    '-days',
    '30',
    '-subj',
    '/CN=hostmgr test CA',
  );
  operator = await tokenFor('operator');
  agent = await startTestAgent();
  await agent.ready();
  sim = new HostSimulator({ statePath: agent.statePath });
}, 60_000);

afterAll(async () => {
  if (agent) await testDb().deleteFrom('certificates').where('node_id', '=', agent.nodeId).execute();
  await agent?.stop();
  rmSync(dir, { recursive: true, force: true });
});

test('an imported certificate (with its chain) is installed as given, 0600; the key is in no response, audit row, log or ended task', async () => {
  const { crt, key } = leaf('imp', 'imp.example.com', ['imp.example.com', 'www.imp.example.com']);
  const chain = crt + read('ca.crt');
  // the key's first base64 line: its private scalar
  const keyBody = key
    .replace(/-----[A-Z ]+-----/g, '')
    .trim()
    .split('\n')[0]!;
  const expected = new X509Certificate(crt);

  const res = await create({ name: 'imp', type: 'imported', certificatePem: chain, privateKeyPem: key });
  expectEnvelope(res, 201, 'certificate_created');
  // recorded at once from the certificate: domain (its first DNS name), fingerprint, validity; not ready until installed
  expect(res.body.data).toMatchObject({
    name: 'imp',
    domain: 'imp.example.com',
    type: 'imported',
    issuanceStatus: 'queued',
    pending: true,
    ready: false,
    renewable: false,
    fingerprint: expected.fingerprint256,
  });
  expect(res.body.data.notAfter).toBe(new Date(expected.validTo).toISOString());
  expect(JSON.stringify(res.body)).not.toContain(keyBody);
  const queued = await testDb().selectFrom('tasks').selectAll().where('id', '=', res.body.data.taskId).executeTakeFirstOrThrow();
  expect(queued.kind).toBe('certificate.install');

  const task = await waitForTask(res.body.data.taskId, ['success', 'failed'], 30_000);
  expect(task.error).toBe('');
  expect(task.status).toBe('success');
  expect(JSON.stringify(task)).not.toContain(keyBody);
  expect(task.payload).not.toHaveProperty('privateKeyPem');

  const got = await call('GET', `/certificates/${res.body.data.id}`, { token: await tokenFor('viewer') });
  expectEnvelope(got, 200, 'certificate_found');
  expect(got.body.data).toMatchObject({ issuanceStatus: 'ready', ready: true, pending: false, renewable: false, issuanceError: '' });
  expect(JSON.stringify(got.body)).not.toContain(keyBody);

  const crtFile = await hostFile('/usr/local/etc/ssl/hostmgr/imp.crt');
  const keyFile = await hostFile('/usr/local/etc/ssl/hostmgr/imp.key');
  expect(crtFile).toMatchObject({ content: chain, mode: '600' });
  expect(keyFile).toMatchObject({ content: key, mode: '600' });
  expect(new X509Certificate(crtFile!.content).fingerprint256).toBe(got.body.data.fingerprint);
  expect(await hostFile('/usr/local/etc/ssl/hostmgr/imp.key.hostmgr-new')).toBeNull();

  const audit = await testDb().selectFrom('audit_log').selectAll().where('route', 'like', '%/certificates%').execute();
  expect(audit.length).toBeGreaterThan(0);
  expect(JSON.stringify(audit)).not.toContain(keyBody);
  expect(agent.log()).not.toContain(keyBody);
  // E22 stays managed-only
  expectEnvelope(await call('POST', `/certificates/${res.body.data.id}/retry`, { token: operator }), 409, 'certificate_not_managed');
}, 60_000);

test('an imported certificate for a given domain it covers (wildcard) is recorded under that domain', async () => {
  const { crt, key } = leaf('wild', '*.wild.example.com', ['*.wild.example.com']);
  const res = await create({ name: 'wild', type: 'imported', domain: 'App.Wild.example.com', certificatePem: crt, privateKeyPem: key });
  expectEnvelope(res, 201, 'certificate_created');
  expect(res.body.data.domain).toBe('app.wild.example.com');
  expect((await waitForTask(res.body.data.taskId, ['success', 'failed'], 30_000)).status).toBe('success');
});

test('imported: 400 for a key that does not match, an expired certificate, bad PEM, a domain not covered, missing fields — nothing stored', async () => {
  const a = leaf('a', 'a.example.com', ['a.example.com']);
  const b = leaf('b', 'b.example.com', ['b.example.com']);
  const old = leaf('old', 'old.example.com', ['old.example.com'], -1);
  const mismatch = await create({ name: 'mm', type: 'imported', certificatePem: a.crt, privateKeyPem: b.key });
  expectEnvelope(mismatch, 400, 'certificate_key_mismatch');
  expect(mismatch.body.error).toContain('privateKeyPem');
  const expired = await create({ name: 'old', type: 'imported', certificatePem: old.crt, privateKeyPem: old.key });
  expectEnvelope(expired, 400, 'certificate_expired');
  expect(expired.body.error).toContain('certificatePem');
  const badCert = await create({ name: 'bad', type: 'imported', certificatePem: 'hello', privateKeyPem: a.key });
  expectEnvelope(badCert, 400, 'validation_failed');
  expect(badCert.body.error).toContain('certificatePem');
  const garbled = await create({
    name: 'bad',
    type: 'imported',
    certificatePem: '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n',
    privateKeyPem: a.key,
  });
  expectEnvelope(garbled, 400, 'validation_failed');
  expect(garbled.body.error).toContain('certificatePem');
  const badKey = await create({
    name: 'bad',
    type: 'imported',
    certificatePem: a.crt,
    privateKeyPem: '-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n',
  });
  expectEnvelope(badKey, 400, 'validation_failed');
  expect(badKey.body.error).toContain('privateKeyPem');
  expect(badKey.body.error).not.toContain('not a key');
  const otherDomain = await create({ name: 'other', type: 'imported', domain: 'c.example.com', certificatePem: a.crt, privateKeyPem: a.key });
  expectEnvelope(otherDomain, 400, 'certificate_domain_mismatch');
  expect(otherDomain.body.error).toContain('domain');
  const noKey = await create({ name: 'nokey', type: 'imported', certificatePem: a.crt });
  expectEnvelope(noKey, 400, 'validation_failed');
  expect(noKey.body.error).toContain('privateKeyPem');
  const pemOnManaged = await create({ name: 'm', type: 'managed', domain: 'm.example.com', certificatePem: a.crt, privateKeyPem: a.key });
  expectEnvelope(pemOnManaged, 400, 'validation_failed');
  expect(pemOnManaged.body.error).toContain('certificatePem');
  const noDomain = await create({ name: 'nd', type: 'self-signed' });
  expectEnvelope(noDomain, 400, 'validation_failed');
  expect(noDomain.body.error).toContain('domain');
  for (const r of [mismatch, expired, badKey]) expect(JSON.stringify(r.body)).not.toContain(b.key.split('\n')[1]!.slice(0, 40));
  const stored = await testDb()
    .selectFrom('certificates')
    .select('name')
    .where('node_id', '=', agent.nodeId)
    .where('name', 'in', ['mm', 'old', 'bad', 'other', 'nokey', 'm', 'nd'])
    .execute();
  expect(stored).toEqual([]);
});

test('a self-signed certificate is made on the host: ECDSA P-256 key and certificate 0600, SAN the domain, fingerprint in the store', async () => {
  const res = await create({ name: 'self', type: 'self-signed', domain: 'self.example.com' });
  expectEnvelope(res, 201, 'certificate_created');
  expect(res.body.data).toMatchObject({ type: 'self-signed', domain: 'self.example.com', issuanceStatus: 'queued', ready: false, fingerprint: '' });
  const task = await waitForTask(res.body.data.taskId, ['success', 'failed'], 30_000);
  expect(task.error).toBe('');
  expect(task.kind).toBe('certificate.self-sign');
  expect(JSON.stringify(task)).not.toContain('PRIVATE KEY');

  const rec = (await call('GET', `/certificates/${res.body.data.id}`, { token: await tokenFor('viewer') })).body.data;
  expect(rec).toMatchObject({ issuanceStatus: 'ready', ready: true, renewable: false });
  const crt = await hostFile('/usr/local/etc/ssl/hostmgr/self.crt');
  const key = await hostFile('/usr/local/etc/ssl/hostmgr/self.key');
  expect(crt?.mode).toBe('600');
  expect(key?.mode).toBe('600');
  const x = new X509Certificate(crt!.content);
  expect(rec.fingerprint).toBe(x.fingerprint256);
  expect(x.subjectAltName).toBe('DNS:self.example.com');
  expect(x.subject).toBe('CN=self.example.com');
  expect(x.issuer).toBe(x.subject);
  expect(x.verify(x.publicKey)).toBe(true);
  expect(x.checkPrivateKey(createPrivateKey(key!.content))).toBe(true);
  expect(createPrivateKey(key!.content).asymmetricKeyDetails).toMatchObject({ namedCurve: 'prime256v1' });
  expect(rec.notBefore).toBe(new Date(x.validFrom).toISOString());
  expect(rec.notAfter).toBe(new Date(x.validTo).toISOString());
  expect(new Date(rec.notAfter).getTime() - new Date(rec.notBefore).getTime()).toBe(365 * 24 * 3600 * 1000);
  // openssl agrees with node on the fingerprint the store shows
  const printed = execFileSync('openssl', ['x509', '-noout', '-fingerprint', '-sha256'], { input: crt!.content }).toString();
  expect(printed.trim()).toBe(`sha256 Fingerprint=${rec.fingerprint}`);
}, 60_000);
