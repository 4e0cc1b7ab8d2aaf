import { createHmac, randomUUID } from 'node:crypto';
import { call, expectEnvelope, testDb, tokenFor, uid } from '../helpers/api.ts';
import { insertNode, queueTask, stackQueue, waitUntil } from '../helpers/agent.ts';
import { notifyOfflineNodes } from '#domain/nodes/offline';
import { pruneDeliveries } from '#domain/notifications/delivery/worker';
import { NOTIFY_PEER_HOST, startReceiver, startSmtp, type TestReceiver, type TestSmtp } from '../helpers/notify-peers.ts';

/**
 * Notification delivery end to end: channels and rules set over real HTTP, tasks ended through the agent API,
 * the test stack's delivery worker sending to a real SMTP server (smtp-server, parsed by mailparser) and real
 * HTTP receivers on loopback.
 */
const SMTP_USER = { username: 'hostmgr', password: `smtp-${randomUUID()}` };
const WEBHOOK_SECRET = `whsec-${randomUUID()}`;
const NTFY_TOKEN = `tk_${uid()}`;
const PUSHOVER = { userKey: `u${uid()}`, appToken: `a${uid()}` };
const DISCORD_PATH = `/api/webhooks/123/${uid()}`;

let operator: string;
let smtp: TestSmtp;
let hook: TestReceiver;
let peers: TestReceiver;
const extra: TestReceiver[] = [];

beforeAll(async () => {
  stackQueue();
  operator = await tokenFor('operator');
  smtp = await startSmtp(SMTP_USER);
  hook = await startReceiver([200]);
  peers = await startReceiver([200]);
  const res = await call('PATCH', '/notifications/channels', {
    token: operator,
    body: {
      email: {
        host: NOTIFY_PEER_HOST,
        port: smtp.port,
        secure: false,
        username: SMTP_USER.username,
        password: SMTP_USER.password,
        from: 'hostmgr@example.net',
        to: 'ops@example.net',
      },
      webhook: { url: `${hook.url}/hooks/hostmgr`, secret: WEBHOOK_SECRET },
      ntfy: { server: `${peers.url}/ntfy`, topic: 'hostmgr-default', token: NTFY_TOKEN },
      discord: { webhookUrl: `${peers.url}${DISCORD_PATH}` },
      pushover: { apiUrl: `${peers.url}/pushover/1/messages.json`, ...PUSHOVER },
    },
  });
  expectEnvelope(res, 200, 'notification_channels_updated');
});

afterAll(async () => {
  await Promise.all([smtp?.close(), hook?.close(), peers?.close(), ...extra.map((r) => r.close())]);
});

/** A node and an agent token for it. */
async function agentNode() {
  const nodeId = await insertNode(randomUUID(), { status: 'member' });
  return { nodeId, token: await tokenFor('agent', nodeId) };
}

/** A task on the node, started and ended through the agent API. */
async function endTask(node: { nodeId: string; token: string }, status: 'failed' | 'success', error?: string) {
  const t = await queueTask({ kind: 'host.probe', nodeId: node.nodeId, resource: `probe:${uid()}`, payload: { sysctls: [] }, dispatch: false });
  expectEnvelope(await call('POST', `/agent/tasks/${t.id}/start`, { token: node.token }), 200, 'task_started');
  expectEnvelope(
    await call('POST', `/agent/tasks/${t.id}/finish`, {
      token: node.token,
      body: { attempt: 1, status, ...(error && { error }), ...(status === 'success' && { result: { values: {} } }) },
    }),
    200,
    'task_finished',
  );
  return t.id;
}

const createRule = async (body: Record<string, unknown>) => {
  const res = await call('POST', '/notifications/rules', { token: operator, body });
  expectEnvelope(res, 201, 'notification_rule_created');
  return res.body.data as { id: number } & Record<string, unknown>;
};

const deliveriesOfRule = (ruleId: number) => testDb().selectFrom('notification_deliveries').selectAll().where('rule_id', '=', ruleId).orderBy('id').execute();
const allSettled = (ruleId: number, n: number) =>
  waitUntil(`${n} deliveries of rule ${ruleId} to settle`, async () => {
    const rows = await deliveriesOfRule(ruleId);
    return rows.length === n && rows.every((r) => r.delivered_at || r.gave_up_at) ? rows : null;
  });
const ruleView = async (id: number) =>
  (await call('GET', '/notifications/rules', { token: operator })).body.data.rules.find((r: { id: number }) => r.id === id);

describe('channel settings', () => {
  test('secrets are write-only: answered as "set", kept when omitted, never in an audit row', async () => {
    const res = await call('GET', '/notifications/channels', { token: operator });
    expectEnvelope(res, 200, 'notification_channels_listed');
    const by = Object.fromEntries(res.body.data.map((c: { channel: string }) => [c.channel, c]));
    expect(Object.keys(by).sort()).toEqual(['discord', 'email', 'ntfy', 'pushover', 'webhook']);
    expect(by.email.settings).toEqual({
      host: NOTIFY_PEER_HOST,
      port: smtp.port,
      secure: false,
      username: 'hostmgr',
      from: 'hostmgr@example.net',
      to: 'ops@example.net',
      password: 'set',
    });
    expect(by.webhook.settings).toEqual({ url: 'set', secret: 'set' });
    expect(by.discord.settings).toEqual({ webhookUrl: 'set' });
    expect(by.pushover.settings).toEqual({ apiUrl: `${peers.url}/pushover/1/messages.json`, userKey: 'set', appToken: 'set' });
    for (const secret of [SMTP_USER.password, WEBHOOK_SECRET, NTFY_TOKEN, PUSHOVER.appToken, DISCORD_PATH, '/hooks/hostmgr'])
      expect(res.text).not.toContain(secret);

    // a change to one plain field keeps the secret
    const upd = await call('PATCH', '/notifications/channels', { token: operator, body: { email: { from: 'alerts@example.net' } } });
    expectEnvelope(upd, 200);
    expect(upd.body.data.find((c: { channel: string }) => c.channel === 'email').settings).toMatchObject({ from: 'alerts@example.net', password: 'set' });
    expect(upd.text).not.toContain(SMTP_USER.password);
    const audit = await testDb().selectFrom('audit_log').selectAll().where('route', '=', '/api/notifications/channels').execute();
    expect(audit.length).toBeGreaterThanOrEqual(2);
    expect(JSON.stringify(audit)).not.toContain(SMTP_USER.password);
    expect(JSON.stringify(audit)).not.toContain(WEBHOOK_SECRET);
  });

  test.each([
    [{ webhook: { url: 'file:///etc/passwd' } }, 400, 'body.webhook.url: scheme file: is not allowed'],
    [{ ntfy: { server: 'gopher://127.0.0.1:70/x' } }, 400, 'body.ntfy.server: scheme gopher: is not allowed'],
    [{ email: { port: 0 } }, 400, 'body.email.port: must be >= 1'],
    [{ email: { smtpPassword: 'x' } }, 400, 'body.email.smtpPassword: is not an accepted field'],
    [{ sms: { to: '1' } }, 400, 'body.sms: is not an accepted field'],
  ])('%j is refused (%i) naming the field; nothing changes', async (body, status, error) => {
    const before = await testDb().selectFrom('notification_channels').selectAll().orderBy('channel').execute();
    const res = await call('PATCH', '/notifications/channels', { token: operator, body });
    expectEnvelope(res, status);
    expect(res.body.error).toContain(error);
    expect(await testDb().selectFrom('notification_channels').selectAll().orderBy('channel').execute()).toEqual(before);
  });

  test('operators only: a viewer gets 403', async () => {
    const viewer = await tokenFor('viewer');
    expectEnvelope(await call('GET', '/notifications/channels', { token: viewer }), 403);
    expectEnvelope(await call('PATCH', '/notifications/channels', { token: viewer, body: { webhook: { url: 'http://x.example' } } }), 403);
  });
});

describe('rules', () => {
  test('create and update a task-event rule; the rules list shows filters, channels and no failure', async () => {
    const { nodeId } = await agentNode();
    const rule = await createRule({ templateKey: 'task.failed', taskKind: 'jail.migrate', nodeId, ntfyEnabled: true, config: { ntfyTopic: 'migrations' } });
    expect(rule).toMatchObject({
      templateKey: 'task.failed',
      targetKey: '*',
      kind: 'custom',
      taskKind: 'jail.migrate',
      nodeId,
      ntfyEnabled: true,
      webhookEnabled: false,
      uiEnabled: false,
      failing: false,
      deliveryFailures: {},
    });
    const upd = await call('PATCH', `/notifications/rules/${rule.id}`, { token: operator, body: { webhookEnabled: true, taskKind: null } });
    expectEnvelope(upd, 200, 'notification_rule_updated');
    expect(upd.body.data).toMatchObject({ id: rule.id, webhookEnabled: true, taskKind: null, ntfyEnabled: true });
    expect(await ruleView(rule.id)).toEqual(upd.body.data);
    await testDb().updateTable('notification_rules').set({ active: false }).where('id', '=', rule.id).execute();
  });

  test.each([
    [{ templateKey: 'no.such.event' }, 400, 'body.templateKey: no template "no.such.event"'],
    [{ templateKey: 'task_failed', targetKey: 'not-a-node' }, 400, 'body.targetKey: no node target "not-a-node"'],
    [{ templateKey: 'task.failed', config: { webhookUrl: 'ftp://example.net/x' } }, 400, 'body.config.webhookUrl: scheme ftp: is not allowed'],
    [{ templateKey: 'task.failed', taskKind: 'Bad Kind' }, 400, 'body.taskKind: must match pattern'],
    [{ templateKey: 'task.failed', emailEnabled: 'yes' }, 400, 'body.emailEnabled: must be boolean'],
  ])('%j is refused (%i) naming the field', async (body, status, error) => {
    const res = await call('POST', '/notifications/rules', { token: operator, body });
    expectEnvelope(res, status);
    expect(res.body.error).toContain(error);
  });

  test('updating a missing rule is 404', async () => {
    expectEnvelope(await call('PATCH', '/notifications/rules/2147483600', { token: operator, body: { active: false } }), 404, 'notification_rule_not_found');
  });
});

describe('delivery', () => {
  test('a failed task: exactly one email to the SMTP server and one signed webhook call, with task id, node and error', async () => {
    const node = await agentNode();
    const rule = await createRule({
      templateKey: 'task.failed',
      nodeId: node.nodeId,
      emailEnabled: true,
      webhookEnabled: true,
      config: { to: 'oncall@example.net' },
    });
    const error = `cannot open 'tank': no such pool ${uid()}`;
    const taskId = await endTask(node, 'failed', error);
    await allSettled(rule.id, 2);

    const mails = smtp.mails.filter((m) => (m.text ?? '').includes(error));
    expect(mails).toHaveLength(1);
    const mail = mails[0];
    expect(mail.subject).toContain(`Task ${taskId} (host.probe`);
    expect(mail.subject).toContain('failed');
    expect(mail.text).toContain(`node: ${node.nodeId}`);
    expect(mail.text).toContain(`task: ${taskId} (host.probe, failed)`);
    expect((mail.to as { text: string }).text).toBe('oncall@example.net');
    expect(mail.headers.get('x-hostmgr-event')).toBe('task.failed');
    expect(smtp.logins).toContainEqual(SMTP_USER);

    const calls = hook.requests.filter((r) => r.body.includes(error));
    expect(calls).toHaveLength(1);
    const [req] = calls;
    expect(req).toMatchObject({ method: 'POST', path: '/hooks/hostmgr', status: 200 });
    expect(req.headers['x-hostmgr-event']).toBe('task.failed');
    expect(req.headers['content-type']).toBe('application/json');
    const expected = `sha256=${createHmac('sha256', WEBHOOK_SECRET).update(req.body).digest('hex')}`;
    expect(req.headers['x-hostmgr-signature-256']).toBe(expected);
    const payload = JSON.parse(req.body);
    expect(payload).toMatchObject({
      event: 'task.failed',
      nodeId: node.nodeId,
      severity: 'error',
      subject: { type: 'task', id: taskId, kind: 'host.probe', status: 'failed' },
    });
    expect(payload.body).toContain(error);
    const rows = await deliveriesOfRule(rule.id);
    expect(rows.map((r) => [r.channel, r.attempts, r.delivered_at !== null])).toEqual([
      ['email', 1, true],
      ['webhook', 1, true],
    ]);
    expect(req.headers['x-hostmgr-delivery']).toBe(String(rows[1].id));
  });

  test('a receiver that answers 500 twice then 200 gets exactly one delivery', async () => {
    const flaky = await startReceiver([500, 500, 200]);
    extra.push(flaky);
    const node = await agentNode();
    const rule = await createRule({ templateKey: 'task.failed', nodeId: node.nodeId, webhookEnabled: true, config: { webhookUrl: `${flaky.url}/flaky` } });
    await endTask(node, 'failed', 'boom');
    const [row] = await allSettled(rule.id, 1);
    expect(flaky.requests.map((r) => r.status)).toEqual([500, 500, 200]);
    // the same delivery id on every try, so a receiver can de-duplicate
    expect(new Set(flaky.requests.map((r) => r.headers['x-hostmgr-delivery']))).toEqual(new Set([String(row.id)]));
    expect(row).toMatchObject({ attempts: 3, last_error: '' });
    expect(row.delivered_at).toBeInstanceOf(Date);
    expect((await ruleView(rule.id)).failing).toBe(false);
  });

  test('a channel that keeps failing is given up, marked failing on the rule without a notification, and cleared by its next success', async () => {
    const down = await startReceiver([503]);
    extra.push(down);
    const node = await agentNode();
    const rule = await createRule({ templateKey: 'task.failed', nodeId: node.nodeId, webhookEnabled: true, config: { webhookUrl: `${down.url}/down` } });
    const notificationsBefore = await testDb().selectFrom('notifications').select('id').execute();
    await endTask(node, 'failed', 'first');
    const [row] = await allSettled(rule.id, 1);
    expect(row.delivered_at).toBeNull();
    expect(row.gave_up_at).toBeInstanceOf(Date);
    expect(row.attempts).toBe(4); // HM_NOTIFY_MAX_ATTEMPTS in the test stack
    expect(down.requests).toHaveLength(4);
    expect(row.last_error).toBe('HTTP 503');
    const view = await ruleView(rule.id);
    expect(view.failing).toBe(true);
    expect(view.deliveryFailures.webhook.error).toBe('HTTP 503');
    expect(Date.parse(view.deliveryFailures.webhook.at)).not.toBeNaN();
    // only the task's own notification was raised: giving up raises none
    const raised = await testDb()
      .selectFrom('notifications')
      .selectAll()
      .where(
        'id',
        'not in',
        notificationsBefore.map((n) => n.id),
      )
      .where('node_id', '=', node.nodeId)
      .execute();
    expect(raised.map((n) => n.kind)).toEqual(['task_failed']);

    down.answers = [200];
    await endTask(node, 'failed', 'second');
    const rows = await allSettled(rule.id, 2);
    expect(rows[1].delivered_at).toBeInstanceOf(Date);
    expect(await ruleView(rule.id)).toMatchObject({ failing: false, deliveryFailures: {} });
  });

  test('task.succeeded by kind and node to ntfy, Discord and Pushover in their formats; the UI list gets nothing', async () => {
    const node = await agentNode();
    const rule = await createRule({
      templateKey: 'task.succeeded',
      taskKind: 'host.probe',
      nodeId: node.nodeId,
      ntfyEnabled: true,
      discordEnabled: true,
      pushoverEnabled: true,
      config: { ntfyTopic: `ok-${node.nodeId.slice(0, 8)}` },
    });
    const other = await createRule({ templateKey: 'task.succeeded', taskKind: 'jail.migrate', nodeId: node.nodeId, ntfyEnabled: true });
    const taskId = await endTask(node, 'success');
    await allSettled(rule.id, 3);
    expect(await deliveriesOfRule(other.id)).toEqual([]); // another task kind
    const mine = peers.requests.filter((r) => r.body.includes(`task: ${taskId} `) || r.body.includes(`task%3A+${taskId}+`));

    const ntfy = mine.filter((r) => r.path.startsWith('/ntfy/'));
    expect(ntfy).toHaveLength(1);
    expect(ntfy[0].path).toBe(`/ntfy/ok-${node.nodeId.slice(0, 8)}`);
    expect(ntfy[0].headers).toMatchObject({
      title: expect.stringContaining(`Task ${taskId}`),
      priority: 'low',
      tags: 'information_source',
      authorization: `Bearer ${NTFY_TOKEN}`,
    });
    expect(ntfy[0].body).toContain(`node: ${node.nodeId}`);

    const discord = mine.filter((r) => r.path === DISCORD_PATH);
    expect(discord).toHaveLength(1);
    const d = JSON.parse(discord[0].body);
    expect(d.content).toContain(`Task ${taskId}`);
    expect(d.embeds[0]).toMatchObject({ title: expect.stringContaining(`Task ${taskId}`), description: expect.stringContaining(`node: ${node.nodeId}`) });

    const pushover = mine.filter((r) => r.path === '/pushover/1/messages.json');
    expect(pushover).toHaveLength(1);
    expect(pushover[0].headers['content-type']).toBe('application/x-www-form-urlencoded');
    const form = new URLSearchParams(pushover[0].body);
    expect(Object.fromEntries(form)).toMatchObject({
      token: PUSHOVER.appToken,
      user: PUSHOVER.userKey,
      priority: '-1',
      title: expect.stringContaining(`Task ${taskId}`),
    });
    expect(form.get('message')).toContain(`node: ${node.nodeId}`);

    expect(await testDb().selectFrom('notifications').select('id').where('node_id', '=', node.nodeId).execute()).toEqual([]);
  });

  test('node_offline is raised and delivered once while a member node stays silent, and again after it came back', async () => {
    const nodeId = await insertNode(randomUUID(), { status: 'member', lastSeenAt: new Date(Date.now() - 3600_000), heartbeatIntervalS: 5 });
    const rule = await createRule({ templateKey: 'node_offline', targetKey: '*', nodeId, webhookEnabled: true });
    const offline = () =>
      testDb().selectFrom('notifications').select(['kind', 'title', 'scope']).where('node_id', '=', nodeId).where('kind', '=', 'node_offline').execute();
    // what the scheduled sweep runs; a second sweep does not repeat it
    expect(await notifyOfflineNodes(testDb())).toContain(nodeId);
    expect(await notifyOfflineNodes(testDb())).not.toContain(nodeId);
    expect(await offline()).toEqual([{ kind: 'node_offline', title: `Node node-${nodeId.slice(0, 8)} is offline`, scope: 'node' }]);
    await allSettled(rule.id, 1);
    const calls = hook.requests.filter((r) => r.headers['x-hostmgr-event'] === 'node_offline' && r.body.includes(nodeId));
    expect(calls).toHaveLength(1);
    expect(JSON.parse(calls[0].body)).toMatchObject({ event: 'node_offline', nodeId, severity: 'error', subject: { type: 'node', id: nodeId } });

    // heard from again: the mark is cleared; silent again: raised once more
    await testDb().updateTable('nodes').set({ last_seen_at: new Date() }).where('id', '=', nodeId).execute();
    expect(await notifyOfflineNodes(testDb())).not.toContain(nodeId);
    expect(
      (await testDb().selectFrom('nodes').select('offline_notified_at').where('id', '=', nodeId).executeTakeFirstOrThrow()).offline_notified_at,
    ).toBeNull();
    await testDb()
      .updateTable('nodes')
      .set({ last_seen_at: new Date(Date.now() - 3600_000) })
      .where('id', '=', nodeId)
      .execute();
    expect(await notifyOfflineNodes(testDb())).toContain(nodeId);
    expect(await offline()).toHaveLength(2);
    await allSettled(rule.id, 2);
  });

  test('ended deliveries past their retention are pruned with their events; recent and pending ones stay', async () => {
    const rule = await createRule({ templateKey: 'task.failed', taskKind: 'never.runs', webhookEnabled: true });
    const old = new Date(Date.now() - 40 * 86400_000);
    const event = (title: string) =>
      testDb()
        .insertInto('notification_events')
        .values({ type: 'task.failed', title, body: '', severity: 'error', node_id: null, target_key: null, subject: '{}', created_at: old } as never)
        .returning('id')
        .executeTakeFirstOrThrow();
    const [ended, pending, recent] = [await event('ended'), await event('pending'), await event('recent')];
    const far = new Date(Date.now() + 86400_000);
    await testDb()
      .insertInto('notification_deliveries')
      .values([
        { event_id: ended.id, rule_id: rule.id, channel: 'webhook', delivered_at: old },
        { event_id: pending.id, rule_id: rule.id, channel: 'webhook', next_attempt_at: far },
        { event_id: recent.id, rule_id: rule.id, channel: 'webhook', gave_up_at: new Date() },
      ])
      .execute();
    expect(await pruneDeliveries(testDb(), 30)).toBeGreaterThanOrEqual(1);
    const left = await testDb().selectFrom('notification_events').select('id').where('id', 'in', [ended.id, pending.id, recent.id]).orderBy('id').execute();
    expect(left.map((e) => e.id)).toEqual([pending.id, recent.id]);
    expect((await deliveriesOfRule(rule.id)).map((d) => d.event_id)).toEqual([pending.id, recent.id]);
  });
});

describe('outbound-address policy: deliveries reach public addresses and the allow-listed receivers only', () => {
  // the stack admits 127.0.0.3 only (HM_NOTIFY_ALLOW_CIDRS): real receivers listen on the refused addresses below,
  // so a delivery that skipped the policy would reach them
  test.each([
    ['loopback 127.0.0.1', '127.0.0.1', 'loopback'],
    ['IPv6 loopback [::1]', '::1', 'loopback'],
  ])('a webhook to %s is refused with a fixed reason and never sent', async (_name, host, range) => {
    const inside = await startReceiver([200], host);
    extra.push(inside);
    for (const url of [`${inside.url}/internal`, `http://[::ffff:${host === '::1' ? '127.0.0.1' : host}]:${new URL(inside.url).port}/mapped`]) {
      const node = await agentNode();
      const rule = await createRule({ templateKey: 'task.failed', nodeId: node.nodeId, webhookEnabled: true, config: { webhookUrl: url } });
      await endTask(node, 'failed', 'boom');
      const [row] = await allSettled(rule.id, 1);
      expect(row.gave_up_at).toBeInstanceOf(Date);
      expect(row.last_error).toMatch(new RegExp(`^address not allowed: (ipv4Mapped:)?${range}$`));
      expect((await ruleView(rule.id)).deliveryFailures.webhook.error).toBe(row.last_error);
    }
    expect(inside.requests).toEqual([]);
  });

  test.each([
    ['private 10.0.0.1', 'http://10.0.0.1/hook', 'address not allowed: private'],
    ['link-local metadata 169.254.169.254', 'http://169.254.169.254/latest/meta-data/', 'address not allowed: linkLocal'],
    ['IPv6 unique-local [fd00::1]', 'http://[fd00::1]/hook', 'address not allowed: uniqueLocal'],
    ['IPv6 link-local [fe80::1]', 'http://[fe80::1]/hook', 'address not allowed: linkLocal'],
    ['a name resolving to loopback', 'http://localhost:9/hook', 'address not allowed: loopback'],
  ])('a webhook to %s is refused before connecting', async (_name, url, reason) => {
    const node = await agentNode();
    const rule = await createRule({ templateKey: 'task.failed', nodeId: node.nodeId, webhookEnabled: true, config: { webhookUrl: url } });
    await endTask(node, 'failed', 'boom');
    const [row] = await allSettled(rule.id, 1);
    expect(row.last_error).toBe(reason);
  });

  test('SMTP: a server on a refused address gets no connection; the fixed reason is stored', async () => {
    const inside = await startSmtp(SMTP_USER, '127.0.0.1');
    try {
      expectEnvelope(await call('PATCH', '/notifications/channels', { token: operator, body: { email: { host: '127.0.0.1', port: inside.port } } }), 200);
      const node = await agentNode();
      const rule = await createRule({ templateKey: 'task.failed', nodeId: node.nodeId, emailEnabled: true });
      await endTask(node, 'failed', `smtp-${uid()}`);
      const [row] = await allSettled(rule.id, 1);
      expect(row.last_error).toBe('address not allowed: loopback');
      expect(inside.mails).toEqual([]);
      expect(inside.logins).toEqual([]);
    } finally {
      expectEnvelope(await call('PATCH', '/notifications/channels', { token: operator, body: { email: { host: NOTIFY_PEER_HOST, port: smtp.port } } }), 200);
      await inside.close();
    }
  });
});

describe('delivery failures keep a fixed reason, never the peer text', () => {
  test('an error page is stored as its status only; a closed port as ECONNREFUSED; a wrong SMTP login as its reply code', async () => {
    const banner = `SSH-2.0-OpenSSH_9.6 internal-${uid()}`;
    const page = await startReceiver([500]);
    page.errorBody = `<html>${banner}</html>`;
    extra.push(page);
    const closed = await startReceiver([200]);
    const closedUrl = `${closed.url}/gone`;
    await closed.close();
    const node = await agentNode();
    const a = await createRule({ templateKey: 'task.failed', nodeId: node.nodeId, webhookEnabled: true, config: { webhookUrl: `${page.url}/x` } });
    const b = await createRule({ templateKey: 'task.failed', nodeId: node.nodeId, webhookEnabled: true, config: { webhookUrl: closedUrl } });
    await endTask(node, 'failed', 'boom');
    const [ra] = await allSettled(a.id, 1);
    const [rb] = await allSettled(b.id, 1);
    expect(ra.last_error).toBe('HTTP 500');
    expect(rb.last_error).toBe('ECONNREFUSED');
    const viewer = await tokenFor('viewer');
    const listed = await call('GET', '/notifications/rules', { token: viewer });
    expect(listed.text).not.toContain(banner);
    expect(listed.text).not.toContain(closedUrl);

    // the SMTP server answers a wrong password with 535 and its own text: only the code is kept
    expectEnvelope(await call('PATCH', '/notifications/channels', { token: operator, body: { email: { password: 'wrong' } } }), 200);
    try {
      const rule = await createRule({ templateKey: 'task.failed', nodeId: node.nodeId, emailEnabled: true });
      await endTask(node, 'failed', 'auth');
      const [row] = await allSettled(rule.id, 1);
      expect(row.last_error).toMatch(/^SMTP 535( \([A-Z ]+\))?$/);
    } finally {
      expectEnvelope(await call('PATCH', '/notifications/channels', { token: operator, body: { email: { password: SMTP_USER.password } } }), 200);
    }
  });
});

describe('a failure reason stored before reasons were fixed', () => {
  test('reads as "unrecorded": the peer text it may quote is never shown', async () => {
    const node = await agentNode();
    const rule = await createRule({ templateKey: 'task.failed', nodeId: node.nodeId, webhookEnabled: true });
    const old = `webhook to 10.0.0.5 answered HTTP 500: SSH-2.0-OpenSSH internal-${uid()}`;
    await testDb()
      .updateTable('notification_rules')
      .set({
        delivery_failures: JSON.stringify({
          webhook: { error: old, at: '2026-01-01T00:00:00.000Z' },
          ntfy: { error: 'HTTP 503', at: '2026-01-02T00:00:00.000Z' },
        }),
      })
      .where('id', '=', rule.id)
      .execute();
    const res = await call('GET', '/notifications/rules', { token: await tokenFor('viewer') });
    expect(res.text).not.toContain(old);
    expect(res.body.data.rules.find((r: { id: number }) => r.id === rule.id).deliveryFailures).toEqual({
      webhook: { error: 'unrecorded', at: '2026-01-01T00:00:00.000Z' },
      ntfy: { error: 'HTTP 503', at: '2026-01-02T00:00:00.000Z' },
    });
    await testDb().updateTable('notification_rules').set({ active: false }).where('id', '=', rule.id).execute();
  });
});

describe('URLs and header values are checked when written; token-bearing URLs are write-only', () => {
  test.each([
    ['channels', { discord: { webhookUrl: 'https://user:secret@discord.example/api/webhooks/1/t' } }, 'body.discord.webhookUrl: must not carry user-info'],
    ['channels', { webhook: { url: 'https://hook:pw@hooks.example/x' } }, 'body.webhook.url: must not carry user-info'],
    ['channels', { ntfy: { token: 'tk_abc\r\nX-Injected: 1' } }, 'body.ntfy.token: must not contain control characters'],
    ['channels', { ntfy: { priority: 'high\n' } }, 'body.ntfy.priority: must not contain control characters'],
    ['channels', { email: { from: 'a@example.net\r\nRCPT TO:<x@example.net>' } }, 'body.email.from: must not contain control characters'],
    ['channels', { ntfy: { server: 'https://ntfy.example/?auth=tk_secret' } }, 'body.ntfy.server: must not carry a query'],
    ['channels', { pushover: { apiUrl: 'https://u:p@api.example/1/messages.json' } }, 'body.pushover.apiUrl: must not carry user-info'],
    ['rules', { templateKey: 'task.failed', config: { webhookUrl: 'https://u:p@hooks.example/x' } }, 'body.config.webhookUrl: must not carry user-info'],
    ['rules', { templateKey: 'task.failed', config: { to: 'a@example.net\r\nBcc: b@example.net' } }, 'body.config.to: must not contain control characters'],
  ])('%s %j → 400 naming the field; nothing changes', async (what, body, error) => {
    const table = what === 'channels' ? 'notification_channels' : 'notification_rules';
    const before = await testDb().selectFrom(table).selectAll().execute();
    const res =
      what === 'channels'
        ? await call('PATCH', '/notifications/channels', { token: operator, body })
        : await call('POST', '/notifications/rules', { token: operator, body });
    expectEnvelope(res, 400);
    expect(res.body.error).toContain(error);
    expect(await testDb().selectFrom(table).selectAll().execute()).toHaveLength(before.length);
  });

  test('a rule\'s webhook URL reads as "set" for viewers and operators; "set" given back keeps it', async () => {
    const secret = `tok-${uid()}`;
    const node = await agentNode();
    const rule = await createRule({
      templateKey: 'task.failed',
      nodeId: node.nodeId,
      webhookEnabled: true,
      config: { webhookUrl: `${hook.url}/hooks/q?token=${secret}`, to: 'x@example.net' },
    });
    expect(JSON.parse(rule.config as string)).toEqual({ webhookUrl: 'set', to: 'x@example.net' });
    for (const role of ['viewer', 'operator'] as const) {
      const res = await call('GET', '/notifications/rules', { token: await tokenFor(role) });
      expectEnvelope(res, 200);
      expect(res.text).not.toContain(secret);
    }
    const upd = await call('PATCH', `/notifications/rules/${rule.id}`, { token: operator, body: { config: { webhookUrl: 'set', to: 'y@example.net' } } });
    expectEnvelope(upd, 200);
    expect(JSON.parse(upd.body.data.config)).toEqual({ webhookUrl: 'set', to: 'y@example.net' });
    const stored = await testDb().selectFrom('notification_rules').select('config').where('id', '=', rule.id).executeTakeFirstOrThrow();
    expect(JSON.parse(stored.config).webhookUrl).toBe(`${hook.url}/hooks/q?token=${secret}`);
    // and the kept URL is the one delivered to
    await endTask(node, 'failed', `kept-${secret}`);
    await allSettled(rule.id, 1);
    expect(hook.requests.filter((r) => r.path === `/hooks/q?token=${secret}`)).toHaveLength(1);
  });
});
