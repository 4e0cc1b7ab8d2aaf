import { randomUUID } from 'node:crypto';
import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';
import { insertNode } from '../helpers/agent.ts';

/** GET /api/notifications/rules and E23 POST /api/notifications/rules/bulk-delete, over real HTTP. */
let operator: string;
let viewer: string;

const RULE_FIELDS = [
  'active',
  'config',
  'deliveryFailures',
  'discordEnabled',
  'emailEnabled',
  'failing',
  'id',
  'kind',
  'nodeId',
  'ntfyEnabled',
  'pushoverEnabled',
  'targetKey',
  'targetLabel',
  'taskKind',
  'templateKey',
  'templateLabel',
  'uiEnabled',
  'webhookEnabled',
];
const TEMPLATE_FIELDS = ['defaultConfig', 'description', 'key', 'label', 'targetType', 'targets'];

/** A template of its own target type with targets `keys`, plus rules as given; returns their ids. */
async function arrange(keys: string[], rules: Array<{ target: string; kind: 'auto' | 'custom'; deleted?: boolean }>) {
  const T = uid();
  const template = `backup_failed_${T}`;
  const type = `pool_${T}`;
  const db = testDb();
  await db
    .insertInto('notification_templates')
    .values({ key: template, label: `Backup failed ${T}`, description: 'A backup job failed', target_type: type, default_config: '{"minSeverity":"error"}' })
    .execute();
  await db
    .insertInto('notification_targets')
    .values(keys.map((k, i) => ({ target_type: type, key: k, label: `Target ${String.fromCharCode(90 - i)}` })))
    .execute();
  const ids: number[] = [];
  for (const r of rules) {
    const row = await db
      .insertInto('notification_rules')
      .values({
        template_key: template,
        target_key: r.target,
        kind: r.kind,
        email_enabled: r.kind === 'custom',
        config: '{"to":"ops@example.org"}',
        deleted_at: r.deleted ? new Date() : null,
        active: true,
        discord_enabled: false,
        ntfy_enabled: false,
        pushover_enabled: false,
        ui_enabled: true,
      })
      .returning('id')
      .executeTakeFirstOrThrow();
    ids.push(row.id);
  }
  return { template, type, ids };
}

const rulesOf = (template: string) => testDb().selectFrom('notification_rules').selectAll().where('template_key', '=', template).orderBy('id').execute();

beforeAll(async () => {
  operator = await tokenFor('operator');
  viewer = await tokenFor('viewer');
});

describe('GET /notifications/rules', () => {
  test('live rules with labels and templates with their targets; tombstones hidden', async () => {
    const { template, type, ids } = await arrange(
      ['tank', 'zroot'],
      [
        { target: 'tank', kind: 'custom' },
        { target: 'zroot', kind: 'auto', deleted: true },
      ],
    );
    const res = await call('GET', '/notifications/rules', { token: viewer });
    expectEnvelope(res, 200, 'notification_rules_listed');
    const mine = res.body.data.rules.filter((r: { templateKey: string }) => r.templateKey === template);
    expect(mine).toHaveLength(1);
    expect(Object.keys(mine[0]).sort()).toEqual(RULE_FIELDS);
    expect(mine[0]).toEqual({
      id: ids[0],
      templateKey: template,
      templateLabel: expect.stringMatching(/^Backup failed /),
      targetKey: 'tank',
      targetLabel: 'Target Z',
      kind: 'custom',
      active: true,
      uiEnabled: true,
      emailEnabled: true,
      discordEnabled: false,
      ntfyEnabled: false,
      pushoverEnabled: false,
      config: '{"to":"ops@example.org"}',
      webhookEnabled: false,
      taskKind: null,
      nodeId: null,
      failing: false,
      deliveryFailures: {},
    });
    const t = res.body.data.templates.find((x: { key: string }) => x.key === template);
    expect(Object.keys(t).sort()).toEqual(TEMPLATE_FIELDS);
    expect(t).toEqual({
      key: template,
      label: expect.any(String),
      description: 'A backup job failed',
      targetType: type,
      defaultConfig: '{"minSeverity":"error"}',
      targets: [
        { key: 'zroot', label: 'Target Y' },
        { key: 'tank', label: 'Target Z' },
      ],
    });
  });

  test('401 without a token, 403 for an agent', async () => {
    expectEnvelope(await call('GET', '/notifications/rules', { token: null }), 401);
    expectEnvelope(await call('GET', '/notifications/rules', { token: await tokenFor('agent') }), 403);
  });
});

describe('E23 POST /notifications/rules/bulk-delete', () => {
  test('tombstones exactly the set; synchronisation fills only pairs with no row; answers {rules, templates}', async () => {
    // tank: auto (to delete); zroot: custom (stays); vault: tombstoned auto (stays deleted); backup: no row (gets an auto rule)
    const { template, ids } = await arrange(
      ['tank', 'zroot', 'vault', 'backup'],
      [
        { target: 'tank', kind: 'auto' },
        { target: 'zroot', kind: 'custom' },
        { target: 'vault', kind: 'auto', deleted: true },
      ],
    );
    const [tankRule, zrootRule, vaultRule] = ids;
    const res = await call('POST', '/notifications/rules/bulk-delete', { token: operator, body: { ids: [tankRule] } });
    expectEnvelope(res, 200, 'notification_rules_deleted');

    const rows = await rulesOf(template);
    const byTarget = Object.fromEntries(rows.map((r) => [r.target_key, r]));
    expect(rows).toHaveLength(4);
    expect(byTarget.tank.id).toBe(tankRule);
    expect(byTarget.tank.deleted_at).toBeInstanceOf(Date);
    expect(byTarget.zroot.deleted_at).toBeNull();
    expect(byTarget.vault.id).toBe(vaultRule);
    expect(byTarget.vault.deleted_at).toBeInstanceOf(Date);
    expect(byTarget.backup).toMatchObject({
      kind: 'auto',
      active: true,
      ui_enabled: true,
      email_enabled: false,
      config: '{"minSeverity":"error"}',
      deleted_at: null,
    });

    const mine = res.body.data.rules.filter((r: { templateKey: string }) => r.templateKey === template);
    expect(mine.map((r: { id: number }) => r.id).sort((a: number, b: number) => a - b)).toEqual([zrootRule, byTarget.backup.id].sort((a, b) => a - b));
    for (const r of res.body.data.rules) expect(Object.keys(r).sort()).toEqual(RULE_FIELDS);
    const t = res.body.data.templates.find((x: { key: string }) => x.key === template);
    expect(t.targets.map((x: { key: string }) => x.key).sort()).toEqual(['backup', 'tank', 'vault', 'zroot']);

    // the response is what GET answers now
    const now = await call('GET', '/notifications/rules', { token: viewer });
    expect(now.body.data).toEqual(res.body.data);
  });

  test('deleting several rules at once', async () => {
    const { template, ids } = await arrange(
      ['a', 'b', 'c'],
      [
        { target: 'a', kind: 'custom' },
        { target: 'b', kind: 'custom' },
        { target: 'c', kind: 'auto' },
      ],
    );
    const res = await call('POST', '/notifications/rules/bulk-delete', { token: operator, body: { ids: [ids[2], ids[0]] } });
    expectEnvelope(res, 200);
    const rows = await rulesOf(template);
    expect(rows.filter((r) => r.deleted_at === null).map((r) => r.id)).toEqual([ids[1]]);
  });

  test('404 naming missing and already deleted ids; nothing deleted, nothing synchronised', async () => {
    const { template, ids } = await arrange(
      ['a', 'b', 'c'],
      [
        { target: 'a', kind: 'auto' },
        { target: 'b', kind: 'auto', deleted: true },
      ],
    );
    const before = await rulesOf(template);
    const res = await call('POST', '/notifications/rules/bulk-delete', { token: operator, body: { ids: [ids[0], ids[1], 2147483600] } });
    expectEnvelope(res, 404, 'notification_rule_not_found');
    // the ids it names, exactly (a substring test would pass or fail by which ids the store happened to give)
    expect(/ ([\d, ]+) do not exist; nothing was deleted$/.exec(res.body.error)?.[1].split(', ')).toEqual([String(ids[1]), '2147483600']);
    expect(res.body.data).toBeNull();
    expect(await rulesOf(template)).toEqual(before); // target c still has no rule: the transaction rolled back
  });

  test.each([
    [{ ids: [] }, 'body.ids: must NOT have fewer than 1 items'],
    [{ ids: [4, 4] }, 'body.ids: must NOT have duplicate items'],
    [{ ids: [0] }, 'body.ids[0]: must be >= 1'],
    [{ ids: [null] }, 'body.ids[0]: must be integer'],
    [{ ids: '1,2' }, 'body.ids: must be array'],
    [{ rules: [1] }, 'body.ids: is required'],
  ])('400 for %j; nothing changed', async (body, expected) => {
    const { template } = await arrange(['a'], [{ target: 'a', kind: 'auto' }]);
    const before = await rulesOf(template);
    const res = await call('POST', '/notifications/rules/bulk-delete', { token: operator, body });
    expectEnvelope(res, 400, 'validation_failed');
    expect(res.body.error).toContain(expected);
    expect(await rulesOf(template)).toEqual(before);
  });

  test('400 for malformed JSON and a non-JSON content type', async () => {
    expectEnvelope(await call('POST', '/notifications/rules/bulk-delete', { token: operator, rawBody: '{ids: [1]}' }), 400, 'malformed_json');
    expectEnvelope(
      await call('POST', '/notifications/rules/bulk-delete', {
        token: operator,
        rawBody: 'ids=1',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      400,
      'unsupported_content_type',
    );
  });

  test('413 for a body over 1 MiB', async () => {
    const { template, ids } = await arrange(['a'], [{ target: 'a', kind: 'auto' }]);
    const res = await call('POST', '/notifications/rules/bulk-delete', { token: operator, rawBody: JSON.stringify({ ids, pad: ' '.repeat(1100 * 1024) }) });
    expectEnvelope(res, 413, 'payload_too_large');
    expect((await rulesOf(template))[0].deleted_at).toBeNull();
  });

  test('401 without a token, 403 for a viewer; nothing deleted', async () => {
    const { template, ids } = await arrange(['a'], [{ target: 'a', kind: 'auto' }]);
    expectEnvelope(await call('POST', '/notifications/rules/bulk-delete', { token: null, body: { ids } }), 401, 'unauthorized');
    expectEnvelope(await call('POST', '/notifications/rules/bulk-delete', { token: viewer, body: { ids } }), 403, 'forbidden');
    expect((await rulesOf(template))[0].deleted_at).toBeNull();
  });
});

describe('a rule’s node filter', () => {
  test('must name a cluster node: 400 naming body.nodeId on create and update, nothing stored; a real node and null are taken', async () => {
    const before = await testDb().selectFrom('notification_rules').select('id').execute();
    const typo = await call('POST', '/notifications/rules', { token: operator, body: { templateKey: 'task.failed', nodeId: 'fbsd-01-typo' } });
    expectEnvelope(typo, 400, 'notification_node_unknown');
    expect(typo.body.error).toMatch(/^body\.nodeId: no cluster node "fbsd-01-typo"/);
    expect(await testDb().selectFrom('notification_rules').select('id').execute()).toHaveLength(before.length);

    const nodeId = await insertNode(randomUUID(), { status: 'member' });
    const made = await call('POST', '/notifications/rules', { token: operator, body: { templateKey: 'task.failed', nodeId } });
    expectEnvelope(made, 201);
    expect(made.body.data.nodeId).toBe(nodeId);

    const gone = randomUUID();
    const update = await call('PATCH', `/notifications/rules/${made.body.data.id}`, { token: operator, body: { nodeId: gone } });
    expectEnvelope(update, 400, 'notification_node_unknown');
    expect(update.body.error).toContain(`body.nodeId: no cluster node "${gone}"`);
    expect(
      (await testDb().selectFrom('notification_rules').select('match_node_id').where('id', '=', made.body.data.id).executeTakeFirstOrThrow()).match_node_id,
    ).toBe(nodeId);

    const cleared = await call('PATCH', `/notifications/rules/${made.body.data.id}`, { token: operator, body: { nodeId: null } });
    expectEnvelope(cleared, 200);
    expect(cleared.body.data.nodeId).toBeNull();
  });
});
