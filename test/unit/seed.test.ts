// @tier stack
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';
import { loadSeed, readSeedFile, SeedError, DEMO_SEED } from '#shared/seed/load';
import { validateSeed } from '#shared/seed/validate';
import { seedSchema } from '#shared/seed/schema';
import { SEED_SCHEMA_FILE, seedSchemaJson } from '#shared/seed/schema-file';
import { seedTime } from '#shared/seed/time';

/** The seed format and loader (shared/seed), loading into the test store. */
const dir = mkdtempSync(join(tmpdir(), 'hm-seed-'));
const writeJson = (name: string, doc: unknown) => {
  const file = join(dir, name);
  writeFileSync(file, typeof doc === 'string' ? doc : JSON.stringify(doc));
  return file;
};
const problemsOf = (fn: () => unknown): string[] => {
  try {
    fn();
  } catch (err) {
    if (err instanceof SeedError) return err.problems;
    throw err;
  }
  throw new Error('expected a SeedError');
};

/** A small seed whose every key is unique to this run, so it can load into the shared store. */
function fixture() {
  const T = uid();
  const node = randomUUID();
  const pending = randomUUID();
  return {
    T,
    node,
    pending,
    seed: {
      nodes: [
        { id: node, name: `seed-${T}`, ip: '10.3.0.1' },
        { id: pending, name: `seed-p-${T}`, status: 'pending', lastSeenAt: '-2h' },
      ],
      clusterNotes: [{ title: `note ${T}`, content: 'first', createdAt: '2025-02-01T10:00:00Z' }],
      notifications: [
        { kind: 'pool_degraded', title: `tank degraded ${T}`, severity: 'warning', scope: 'node', nodeId: node, createdAt: '-50m' },
        { kind: 'backup_failed', title: `backup failed ${T}`, severity: 'error', dismissedAt: '-1h' },
      ],
      notificationTemplates: [{ key: `backup_failed_${T}`, label: 'Backup failed', targetType: `job_${T}`, defaultConfig: { repeat: 1 } }],
      notificationTargets: [
        { targetType: `job_${T}`, key: `nightly-${T}`, label: 'nightly' },
        { targetType: `job_${T}`, key: `weekly-${T}`, label: 'weekly' },
        { targetType: `job_${T}`, key: `monthly-${T}`, label: 'monthly' },
      ],
      notificationRules: [
        { templateKey: `backup_failed_${T}`, targetKey: `nightly-${T}`, kind: 'custom', emailEnabled: true, config: 'to=ops@example.org' },
        { templateKey: `backup_failed_${T}`, targetKey: `weekly-${T}`, kind: 'auto', deleted: true },
      ],
      backupJobs: [
        { name: `nightly-${T}`, nodeId: node, sourceDataset: 'tank/jails/101', targetEndpoint: 'backup@10.0.0.50:vault/101', schedule: '15 2 * * *' },
      ],
      backupEvents: [
        { job: `nightly-${T}`, status: 'success', createdAt: '-2d', output: 'sent 1.2G' },
        { job: `nightly-${T}`, status: 'failed', createdAt: '-1d', error: `out of space ${T}` },
        { job: `nightly-${T}`, status: 'queued', createdAt: 'now' },
      ],
      hosts: {},
    },
  };
}

describe('seed schema and files', () => {
  test('seed.schema.json is exactly what schema.ts says (npm run seed -- --write-schema)', () => {
    expect(readFileSync(SEED_SCHEMA_FILE, 'utf8')).toBe(seedSchemaJson(seedSchema));
  });

  test('the demo seed and the README example are valid', () => {
    const demo = readSeedFile(DEMO_SEED);
    expect(demo.nodes?.find((n) => n.id === '7d3f0c2e-5b1a-4c8e-9f60-2a4b8c1d9e01')).toMatchObject({ name: 'fbsd-01', ip: '127.0.0.1', status: 'member' });
    expect(demo.backupEvents!.length).toBeGreaterThanOrEqual(50);
    expect(new Set(demo.backupEvents!.map((e) => e.status))).toEqual(new Set(['queued', 'running', 'success', 'failed', 'interrupted']));
    const readme = readFileSync('shared/seed/README.md', 'utf8');
    const example = /## Example\s+```json\n([\s\S]*?)```/.exec(readme)![1];
    expect(() => validateSeed(JSON.parse(example), 'README example')).not.toThrow();
  });

  test('an unreadable or malformed file is refused naming the file', () => {
    const missing = join(dir, 'nope.json');
    expect(() => readSeedFile(missing)).toThrow(new RegExp(`seed ${missing} is invalid:\\n  cannot read the file`));
    const bad = writeJson('bad.json', '{"nodes": [');
    expect(problemsOf(() => readSeedFile(bad))[0]).toMatch(/^not valid JSON: /);
  });

  test('schema violations are all listed, each naming its path', () => {
    const { seed } = fixture();
    const doc = JSON.parse(JSON.stringify(seed));
    doc.backupEvents[1].status = 'done';
    doc.nodes[0].role = 'leader';
    doc.notifications[0].createdAt = 'yesterday';
    delete doc.backupJobs[0].sourceDataset;
    doc.notificationRules[0].active = 'yes';
    doc.colour = 'blue';
    const problems = problemsOf(() => readSeedFile(writeJson('invalid.json', doc)));
    expect(problems).toEqual(
      expect.arrayContaining([
        'backupEvents[1].status: must be one of "queued", "running", "success", "failed", "interrupted", "cancelled"',
        'nodes[0].role: is not an accepted field',
        'notifications[0].createdAt: must be an ISO 8601 date-time, "now" or a relative time such as -2h',
        'backupJobs[0].sourceDataset: is required',
        'notificationRules[0].active: must be boolean',
        'colour: is not an accepted field',
      ]),
    );
    expect(problems).toHaveLength(6);
  });

  test('hosts are checked against $defs.host (the simulator’s host schema)', () => {
    const problems = problemsOf(() => validateSeed({ hosts: { 'node-1': { hostname: 'h', cpus: 0 } } }, 'hosts'));
    expect(problems.some((p) => p.startsWith('hosts.node-1.cpus: must be >= 1'))).toBe(true);
  });

  test('relative and absolute timestamps', () => {
    const now = new Date('2025-05-10T12:00:00Z');
    expect(seedTime('now', now)).toEqual(now);
    expect(seedTime('-90s', now).toISOString()).toBe('2025-05-10T11:58:30.000Z');
    expect(seedTime('-2h', now).toISOString()).toBe('2025-05-10T10:00:00.000Z');
    expect(seedTime('-7d', now).toISOString()).toBe('2025-05-03T12:00:00.000Z');
    expect(seedTime('2025-01-02T03:04:05+02:00', now).toISOString()).toBe('2025-01-02T01:04:05.000Z');
    expect(() => seedTime('2025-13-45T00:00Z', now)).toThrow(RangeError);
  });
});

describe('loading a seed', () => {
  test('loads every section in one go and is idempotent', async () => {
    const { T, node, pending, seed } = fixture();
    const db = testDb();
    const now = new Date('2025-06-01T12:00:00Z');
    const first = await loadSeed(db, validateSeed(seed, 'fixture'), 'fixture', now);
    // synchronisation is store-wide: pairs left by other test files may be synchronised too; this file's own
    // synchronised rule is asserted row by row below
    const { rulesSynchronised, ...counts } = first;
    expect(rulesSynchronised).toBeGreaterThanOrEqual(1);
    expect(counts).toEqual({
      nodes: 2,
      clusterNotes: 1,
      notifications: 2,
      notificationTemplates: 1,
      notificationTargets: 3,
      notificationRules: 2,
      backupJobs: 1,
      backupEvents: 3,
      backupEventsSkipped: 0,
    });

    const nodes = await db.selectFrom('nodes').select(['id', 'name', 'status', 'last_seen_at']).where('id', 'in', [node, pending]).orderBy('status').execute();
    expect(nodes).toEqual([
      { id: node, name: `seed-${T}`, status: 'member', last_seen_at: null },
      { id: pending, name: `seed-p-${T}`, status: 'pending', last_seen_at: new Date('2025-06-01T10:00:00Z') },
    ]);
    const note = await db.selectFrom('cluster_notes').selectAll().where('title', '=', `note ${T}`).executeTakeFirstOrThrow();
    expect(note.created_at.toISOString()).toBe('2025-02-01T10:00:00.000Z');
    const notes = await db.selectFrom('notifications').selectAll().where('title', 'like', `%${T}`).orderBy('id').execute();
    expect(notes.map((n) => [n.scope, n.node_id, n.dismissed_at?.toISOString() ?? null, n.created_at.toISOString() <= now.toISOString()])).toEqual([
      ['node', node, null, true],
      ['global', null, '2025-06-01T11:00:00.000Z', true],
    ]);
    const rules = await db.selectFrom('notification_rules').selectAll().where('template_key', '=', `backup_failed_${T}`).orderBy('target_key').execute();
    expect(rules.map((r) => [r.target_key, r.kind, r.deleted_at !== null, r.email_enabled, r.config])).toEqual([
      [`monthly-${T}`, 'auto', false, false, '{"repeat":1}'], // synchronised: the pair had no row
      [`nightly-${T}`, 'custom', false, true, 'to=ops@example.org'],
      [`weekly-${T}`, 'auto', true, false, '{"repeat":1}'], // tombstone: stays deleted
    ]);
    const events = await db.selectFrom('backup_events').selectAll().where('node_id', '=', node).orderBy('created_at').execute();
    expect(events.map((e) => [e.status, e.source_dataset, e.started_at?.toISOString() ?? null, e.completed_at?.toISOString() ?? null])).toEqual([
      ['success', 'tank/jails/101', '2025-05-30T12:00:00.000Z', '2025-05-30T12:00:00.000Z'],
      ['failed', 'tank/jails/101', '2025-05-31T12:00:00.000Z', '2025-05-31T12:00:00.000Z'],
      ['queued', 'tank/jails/101', null, null],
    ]);

    // the loaded events are what E12 answers
    const res = await call('GET', `/cluster/backups/events/remote?nodeId=${node}&search=OUT%20OF%20SPACE`, { token: await tokenFor('viewer') });
    expectEnvelope(res, 200);
    expect(res.body.data.data.map((e: { id: number }) => e.id)).toEqual([events[1].id]);

    const snapshot = async () => ({
      nodes: await db.selectFrom('nodes').selectAll().where('id', 'in', [node, pending]).orderBy('id').execute(),
      notes: await db.selectFrom('cluster_notes').select(['id', 'title', 'content']).where('title', '=', `note ${T}`).execute(),
      notifications: await db.selectFrom('notifications').selectAll().where('title', 'like', `%${T}`).orderBy('id').execute(),
      rules: await db
        .selectFrom('notification_rules')
        .select(['id', 'target_key', 'kind', 'deleted_at'])
        .where('template_key', '=', `backup_failed_${T}`)
        .orderBy('id')
        .execute(),
      jobs: await db.selectFrom('backup_jobs').select(['id', 'name']).where('node_id', '=', node).execute(),
      events: await db.selectFrom('backup_events').select(['id', 'status']).where('node_id', '=', node).orderBy('id').execute(),
    });
    const before = await snapshot();
    const second = await loadSeed(db, validateSeed(JSON.parse(JSON.stringify(seed)), 'fixture'), 'fixture', now);
    expect(second).toMatchObject({ rulesSynchronised: 0, backupEvents: 0, backupEventsSkipped: 3 });
    const after = await snapshot();
    expect({ ...after, nodes: after.nodes.map(({ updated_at, ...n }) => n) }).toEqual({ ...before, nodes: before.nodes.map(({ updated_at, ...n }) => n) });
  });

  test('a second file updates by natural key and may refer to what the store holds', async () => {
    const { T, node, seed } = fixture();
    const db = testDb();
    await loadSeed(db, validateSeed(seed, 'fixture'), 'fixture');
    const update = validateSeed(
      {
        nodes: [{ id: node, name: `renamed-${T}`, ip: '10.3.0.9' }],
        clusterNotes: [{ title: `note ${T}`, content: 'second' }],
        backupJobs: [{ name: `weekly-${T}`, nodeId: node, sourceDataset: 'zroot/home', targetEndpoint: 'backup@10.0.0.50:vault/home' }],
        backupEvents: [
          { job: `weekly-${T}`, status: 'running' },
          { job: `nightly-${T}`, status: 'success' },
        ],
      },
      'update',
    );
    const summary = await loadSeed(db, update, 'update');
    expect(summary).toMatchObject({ nodes: 1, clusterNotes: 1, backupJobs: 1, backupEvents: 1, backupEventsSkipped: 1 });
    expect(await db.selectFrom('nodes').select(['name', 'ip']).where('id', '=', node).executeTakeFirstOrThrow()).toEqual({
      name: `renamed-${T}`,
      ip: '10.3.0.9',
    });
    const notes = await db.selectFrom('cluster_notes').select('content').where('title', '=', `note ${T}`).execute();
    expect(notes).toEqual([{ content: 'second' }]);
    const weekly = await db
      .selectFrom('backup_events as e')
      .innerJoin('backup_jobs as j', 'j.id', 'e.job_id')
      .select(['e.status', 'e.started_at'])
      .where('j.name', '=', `weekly-${T}`)
      .execute();
    expect(weekly).toHaveLength(1);
    expect(weekly[0].status).toBe('running');
    expect(weekly[0].started_at).toBeInstanceOf(Date);
  });

  test('broken references and duplicates are all refused and nothing is written', async () => {
    const { T, node, seed } = fixture();
    const ghost = randomUUID();
    const doc = JSON.parse(JSON.stringify(seed));
    doc.backupJobs.push({ name: `orphan-${T}`, nodeId: ghost, sourceDataset: 'a', targetEndpoint: 'b' });
    // the target rules are the API's (one check): a host key that does not parse, the runner as its own target
    doc.backupJobs.push(
      {
        name: `badkey-${T}`,
        nodeId: node,
        sourceDataset: 'a',
        targetEndpoint: 'b',
        target: { dataset: 'vault/a', ssh: { user: 'backup', host: 'b.example', hostKey: 'ssh-ed25519 not-base64!' } },
      },
      { name: `self-${T}`, nodeId: node, sourceDataset: 'a', targetEndpoint: 'b', target: { dataset: 'vault/a', nodeId: node } },
    );
    doc.backupEvents.push({ job: `missing-${T}`, status: 'success' });
    doc.notifications.push({ kind: 'x', title: `node-scoped ${T}`, scope: 'node' });
    doc.notificationRules.push({ templateKey: `nope_${T}`, targetKey: 'a' }, { templateKey: `backup_failed_${T}`, targetKey: 'not-a-target' });
    doc.nodes.push({ id: node, name: 'again' });
    doc.clusterNotes.push({ title: 'bad date', createdAt: '2025-02-30T25:00:00Z' });
    let err: unknown;
    try {
      await loadSeed(testDb(), validateSeed(doc, 'broken'), 'broken');
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(SeedError);
    expect((err as SeedError).message).toMatch(/^seed broken is invalid:\n/);
    expect((err as SeedError).problems).toEqual(
      expect.arrayContaining([
        `backupJobs[1].nodeId: node ${ghost} is neither in this seed nor in the store`,
        `backupEvents[3].job: no backup job named "missing-${T}" in this seed or the store`,
        expect.stringMatching(/^backupJobs\[2\]\.target\.ssh\.hostKey: /),
        'backupJobs[3].target.nodeId: must be another node than the runner (nodeId)',
        'notifications[2].nodeId: is required when scope is "node"',
        `notificationRules[2].templateKey: no template "nope_${T}" in this seed or the store`,
        `notificationRules[3].targetKey: no job_${T} target "not-a-target" in this seed or the store`,
        'nodes[2].id: repeats nodes[0]',
        'clusterNotes[1].createdAt: not a valid date-time',
      ]),
    );
    expect((err as SeedError).problems).toHaveLength(9);
    expect(await testDb().selectFrom('nodes').select('id').where('id', '=', node).execute()).toEqual([]);
    expect(await testDb().selectFrom('notification_templates').select('key').where('key', '=', `backup_failed_${T}`).execute()).toEqual([]);
  });
});
