// @tier stack
import { randomUUID, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { testDb } from '../helpers/api.ts';
import { loadSeed, SeedError } from '#shared/seed/load';
import { validateSeed } from '#shared/seed/validate';

/** The seed's `certificates` (shared/seed/certificates.ts), with the demo seed's two: one ready, one failed. */
const demo = JSON.parse(readFileSync('shared/seed/demo.json', 'utf8'));
const nodes: string[] = [];

// the failed issuance left behind would be an E22 target for later files
afterAll(async () => {
  if (nodes.length) await testDb().deleteFrom('certificates').where('node_id', 'in', nodes).execute();
});

test('the demo seed has a ready certificate whose file the simulated host keeps, and a failed initial issuance', async () => {
  const nodeId = randomUUID();
  nodes.push(nodeId);
  const certs = demo.certificates.map((c: Record<string, unknown>) => ({ ...c, nodeId }));
  const files = demo.hosts[demo.certificates[0].nodeId].files;
  const crt = files['/usr/local/etc/ssl/hostmgr/api.crt'];
  expect(crt.mode).toBe('600');
  expect(files['/usr/local/etc/ssl/hostmgr/api.key'].mode).toBe('600');
  const seed = validateSeed(
    { nodes: [{ id: nodeId, name: `certs-${nodeId.slice(0, 6)}` }], certificates: certs, hosts: { [nodeId]: { ...demo.hosts[demo.certificates[0].nodeId] } } },
    'fixture',
  );
  await loadSeed(testDb(), seed, 'fixture');
  await loadSeed(testDb(), seed, 'fixture');
  const rows = await testDb().selectFrom('certificates').selectAll().where('node_id', '=', nodeId).orderBy('name').execute();
  expect(rows.map((r) => [r.name, r.issuance_status, r.issuance_operation])).toEqual([
    ['api', 'ready', 'initial'],
    ['shop', 'failed', 'initial'],
  ]);
  const x = new X509Certificate(crt.content);
  expect(rows[0].fingerprint).toBe(x.fingerprint256);
  expect(rows[0].not_after?.toISOString()).toBe(new Date(x.validTo).toISOString());
  expect(rows[1].issuance_error).toMatch(/Connection refused/);
});

test('a ready certificate without its file on the host is refused, naming the path', async () => {
  const nodeId = randomUUID();
  const seed = validateSeed(
    { nodes: [{ id: nodeId, name: 'c' }], certificates: [{ nodeId, name: 'web', domain: 'web.example.com', issuanceStatus: 'ready' }] },
    'fixture',
  );
  await expect(loadSeed(testDb(), seed, 'fixture')).rejects.toThrow(SeedError);
  await expect(loadSeed(testDb(), seed, 'fixture')).rejects.toThrow(/\/usr\/local\/etc\/ssl\/hostmgr\/web\.crt/);
});
