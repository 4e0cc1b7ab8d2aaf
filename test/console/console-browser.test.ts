// @tier e2e
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { randomUUID } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { adminToken, apiUrl, call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { admitAsMember, hostKeyFile, insertNode, startTestAgent, testJailHost, waitForTask, waitUntil, type TestAgent } from '../helpers/agent.ts';
import { createHost } from '../http/zfs-fixtures.ts';
import { freeGuestId } from '../http/jail-setup.ts';
import { peerViaSshd, startSshd } from '../agent/sshd-server.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';
import { consoleTestHost } from '../helpers/console-host.ts';
import { freeRids } from '../http/vm-fixtures.ts';

/**
 * The web console in a real browser (the system's Chromium, provisioned like sshd) against the suite's stack,
 * with one agent on a simulated host: the overview's counts are the API's, tasks appear in the panel and end
 * there, a queued task cancels from it, dismiss-all empties the bell, the telemetry charts grow with the next
 * samples, a backup run adds an event row, a backup job and a rule edit made through their forms are what the
 * API then lists (a refused value shows the API's problem next to its field), a jail's page shows its new node
 * once a migration succeeds, the audit log filters; on every page axe finds no WCAG 2.1 AA
 * violation and the browser asks nothing of another origin. HM_CONSOLE_SCREENSHOTS=<dir> keeps light and dark
 * screenshots there (docs/console-*.png in the docs).
 */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env.HM_CONSOLE_SCREENSHOTS ?? join(tmpdir(), 'hm-console-shots');

let browser: Browser;
let origin: string;
let agent: TestAgent;
let poolGuid: string;
/** a jail on the console's host, for the jail page's checks and screenshot */
let jailId: number;
/** a shut-off VM on it, for the VM page's checks */
let vmRid: number;
const TEMPLATE = `console_backup_failed_${randomUUID().slice(0, 8)}`;
const foreign: string[] = [];
const pageErrors: string[] = [];

async function open(path: string, opts: { token?: string | null; colorScheme?: 'light' | 'dark' } = {}): Promise<{ context: BrowserContext; page: Page }> {
  // axe is evaluated through the DevTools protocol, which the page's content policy does not govern
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, colorScheme: opts.colorScheme ?? 'light' });
  const token = opts.token === undefined ? adminToken() : opts.token;
  if (token) await context.addInitScript((t) => sessionStorage.setItem('hostmgr.token', t), token);
  context.on('request', (r) => {
    const url = new URL(r.url());
    if (url.protocol !== 'data:' && url.origin !== origin) foreign.push(r.url());
  });
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${origin}/#${path}`, { waitUntil: 'load' });
  return { context, page };
}

/** axe-core's WCAG 2.0/2.1 A and AA rules on the page as it is now. */
async function axeViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const result = await page.evaluate(() =>
    (globalThis as unknown as { axe: { run: (c: unknown) => Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> } }).axe.run({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      // every violation in full; passes and the rest are not collected (axe-core's option for speed)
      resultTypes: ['violations'],
    }),
  );
  return result.violations.map((v) => `${v.id}: ${v.nodes.map((n) => JSON.stringify(n.target)).join(' ')}`);
}

const taskRow = (page: Page, id: number) => page.locator(`li[data-task-id="${id}"]`);

beforeAll(async () => {
  origin = new URL(apiUrl()).origin;
  jailId = await freeGuestId();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  mkdirSync(SHOTS, { recursive: true });
  [vmRid] = await freeRids(1);
  const host = consoleTestHost(jailId);
  agent = await startTestAgent({
    // and a shut-off VM for its page's options
    host: {
      ...host,
      datasets: [...host.datasets, { name: `tank/vms/${vmRid}/disk0`, type: 'volume', usedBytes: 2 ** 30, volsizeBytes: 2 ** 34 }],
      vms: [{ rid: vmRid, name: 'app', state: 'shut off', zvols: [`tank/vms/${vmRid}/disk0`] }],
    },
    env: { HM_SIM_RESILVER_MS: '1500', HM_RESILVER_POLL_MS: '150', HM_TELEMETRY_INTERVAL: '1', HM_TELEMETRY_BATCH_INTERVAL: '3' },
  });
  await agent.ready();
  await admitAsMember(agent);
  poolGuid = (
    await waitUntil('the pool in the store', () => testDb().selectFrom('pools').select('guid').where('node_id', '=', agent.nodeId).executeTakeFirst())
  ).guid;
}, 90_000);

beforeAll(async () => {
  // an event the rule form can offer (the stack starts with none), with one target
  await testDb()
    .insertInto('notification_templates')
    .values({ key: TEMPLATE, label: 'Console backup failed', description: 'A backup job failed', target_type: TEMPLATE, default_config: '{}' })
    .execute();
  await testDb().insertInto('notification_targets').values({ target_type: TEMPLATE, key: 'tank', label: 'Pool tank' }).execute();
});

afterAll(async () => {
  await browser?.close();
});

test('the console is served on the API origin with a content policy, and its JavaScript is within 100 KB gzip', async () => {
  const page = await fetch(`${origin}/`);
  expect(page.status).toBe(200);
  expect(page.headers.get('content-type')).toMatch(/^text\/html/);
  expect(page.headers.get('content-security-policy')).toContain("connect-src 'self'");
  const script = await fetch(`${origin}/console/main.js`);
  expect(script.status).toBe(200);
  expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
  expect((await fetch(`${origin}/console/nothing.js`)).status).toBe(404);
  // first load: every script the page loads (one bundle; any chunk would be counted too)
  const js = readdirSync('dist/console').filter((f) => f.endsWith('.js'));
  const gzip = js.reduce((n, f) => n + gzipSync(readFileSync(join('dist/console', f)), { level: 9 }).length, 0);
  expect(js).toContain('main.js');
  expect(gzip).toBeLessThanOrEqual(100 * 1024);
});

test('sign in with a token: the role badge shows it, the audit link only for admins', async () => {
  const { context, page } = await open('/', { token: null });
  await page.fill('input[name=token]', 'not-a-token');
  await page.click('button[type=submit]');
  await expect(page.locator('[role=alert]').textContent()).resolves.toContain('The token was not accepted');
  await page.fill('input[name=token]', await tokenFor('viewer'));
  await page.click('button[type=submit]');
  await page.locator('[data-role=viewer]').waitFor();
  expect(await page.locator('nav a', { hasText: 'Audit' }).count()).toBe(0);
  expect(await page.evaluate(() => sessionStorage.getItem('hostmgr.token'))).toBeTruthy();
  await context.close();
  const admin = await open('/');
  await admin.page.locator('[data-role=admin]').waitFor();
  expect(await admin.page.locator('nav a', { hasText: 'Audit' }).count()).toBe(1);
  await admin.context.close();
}, 60_000);

test('overview counts equal the API’s', async () => {
  const { context, page } = await open('/');
  const online = async () => (await call('GET', '/cluster/nodes?status=member&online=true&size=1')).body.data.total;
  const members = async () => (await call('GET', '/cluster/nodes?status=member&size=1')).body.data.total;
  await waitUntil('the overview to show the API’s node counts', async () => {
    const shown = [await page.locator('[data-count=nodes-online]').textContent(), await page.locator('[data-count=nodes-members]').textContent()].map(Number);
    const api = [await online(), await members()];
    return shown[0] === api[0] && shown[1] === api[1] && api[0] >= 1;
  });
  await page.locator(`tr[data-node]`).first().waitFor();
  expect(await page.locator('tr[data-node]').count()).toBe(await members());
  await context.close();
}, 60_000);

test('an E7 request appears in the task panel and reaches success there', async () => {
  const { context, page } = await open('/');
  const res = await call('POST', `/zfs/pools/${poolGuid}/replace-device`, { body: { old: 'ada1', new: 'ada3' }, token: await tokenFor('operator') });
  expectEnvelope(res, 202, 'device_replacement_queued');
  const row = taskRow(page, res.body.data.id);
  await row.waitFor({ timeout: 20_000 });
  await expect(row.textContent()).resolves.toContain('pool.replace-device');
  await page.locator(`li[data-task-id="${res.body.data.id}"][data-status=success]`).waitFor({ timeout: 60_000 });
  await context.close();
}, 90_000);

test('cancelling a queued task from the panel shows cancelled and the API’s answer', async () => {
  const host = await createHost(); // a node without an agent: its task stays queued
  const res = await call('POST', `/zfs/pools/${host.tank.guid}/replace-device`, { body: { old: 'ada1', new: 'ada4' }, token: await tokenFor('operator') });
  expectEnvelope(res, 202);
  const id = res.body.data.id;
  const { context, page } = await open('/');
  await page.locator(`li[data-task-id="${id}"][data-status=queued]`).waitFor({ timeout: 20_000 });
  await taskRow(page, id)
    .getByRole('button', { name: `Cancel task ${id}` })
    .click();
  await page.locator(`li[data-task-id="${id}"][data-status=cancelled]`).waitFor({ timeout: 20_000 });
  await expect(taskRow(page, id).locator('.answer').textContent()).resolves.toBe('The task was cancelled before it started.');
  expect((await call('GET', `/tasks/${id}`)).body.data.status).toBe('cancelled');
  await context.close();
}, 60_000);

test('viewers see no Cancel', async () => {
  const host = await createHost();
  const res = await call('POST', `/zfs/pools/${host.tank.guid}/replace-device`, { body: { old: 'ada1', new: 'ada4' }, token: await tokenFor('operator') });
  const { context, page } = await open('/', { token: await tokenFor('viewer') });
  await page.locator(`li[data-task-id="${res.body.data.id}"][data-status=queued]`).waitFor({ timeout: 20_000 });
  expect(await taskRow(page, res.body.data.id).getByRole('button').count()).toBe(0);
  await context.close();
  await call('POST', `/tasks/${res.body.data.id}/cancel`, { token: await tokenFor('operator') });
}, 60_000);

test('dismissing one lowers the bell; dismiss-all empties it', async () => {
  // the bell counts every active notification; dismiss-all is for the global ones, so node-scoped ones go first
  await testDb().updateTable('notifications').set({ dismissed_at: new Date() }).where('scope', '=', 'node').where('dismissed_at', 'is', null).execute();
  await testDb()
    .insertInto('notifications')
    .values(
      [1, 2, 3].map((i) => ({
        kind: 'pool_degraded',
        title: `console ${i}`,
        body: 'zpool tank: one device FAULTED',
        severity: 'warning',
        scope: 'global',
        node_id: null,
      })),
    )
    .execute();
  const { context, page } = await open('/notifications');
  const bell = page.locator('a.bell');
  const active = (await call('GET', '/notifications/count')).body.data.active;
  expect(active).toBeGreaterThanOrEqual(3);
  await page.locator(`a.bell[data-count="${active}"]`).waitFor();
  await page.getByRole('button', { name: 'Dismiss “console 2”' }).click();
  await page.locator(`a.bell[data-count="${active - 1}"]`).waitFor();
  await expect(page.locator('.answer').textContent()).resolves.toBe('Notification dismissed.');
  await page.getByRole('button', { name: 'Dismiss all global notifications' }).click();
  await page.locator('a.bell[data-count="0"]').waitFor();
  expect(await bell.locator('.count').count()).toBe(0);
  expect((await call('GET', '/notifications/count')).body.data.active).toBe(0);
  await context.close();
}, 60_000);

test('the telemetry charts draw the history and redraw with the next samples', async () => {
  const { context, page } = await open('/storage');
  await page.selectOption('label:has-text("Node") select', agent.nodeId);
  const chart = page.locator('[data-chart=bandwidth]');
  await chart.locator('canvas').waitFor({ timeout: 30_000 });
  const points = async () => Number(await chart.getAttribute('data-points'));
  const first = await waitUntil('the first points', async () => ((await points()) > 0 ? points() : undefined), 30_000);
  // the agent samples every second; the page polls E14 every 10 s
  await waitUntil('more points after the next poll', async () => (await points()) > first, 40_000, 500);
  expect(await page.locator('[data-chart] canvas').count()).toBe(5);
  await context.close();
}, 90_000);

test('a backup run from the page adds an event row', async () => {
  const runner = await insertNode(randomUUID(), { status: 'member' });
  const target = await insertNode(randomUUID(), { status: 'member' });
  const name = `console-${randomUUID().slice(0, 8)}`;
  const job = await call('POST', '/cluster/backups/jobs', {
    token: await tokenFor('operator'),
    body: {
      name,
      nodeId: runner,
      source: { dataset: 'zroot/data' },
      target: { nodeId: target, dataset: 'vault/backups/data' },
      schedule: '0 3 * * *',
      retention: 3,
    },
  });
  expectEnvelope(job, 201);
  const { context, page } = await open('/backups');
  await page.getByRole('button', { name: `Run ${name}` }).click();
  await expect(page.locator('.answer').first().textContent()).resolves.toBeTruthy();
  const events = (await call('GET', `/cluster/backups/events/remote?jobId=${job.body.data.id}`)).body.data.data;
  expect(events).toHaveLength(1);
  await page.locator(`tr[data-event="${events[0].id}"]`).waitFor({ timeout: 20_000 });
  await context.close();
}, 60_000);

test('a backup job created through the form is listed by the API with the same fields; a refused value shows the API’s problem at its field', async () => {
  const runner = await insertNode(randomUUID(), { status: 'member' });
  const target = await insertNode(randomUUID(), { status: 'member' });
  const operator = await tokenFor('operator');
  const name = `form-${randomUUID().slice(0, 8)}`;
  const body = (schedule: string) => ({
    name,
    nodeId: runner,
    source: { dataset: 'zroot/data' },
    target: { nodeId: target, dataset: 'vault/backups/form' },
    schedule,
    retention: 5,
    enabled: true,
  });
  const { context, page } = await open('/backups', { token: operator });
  const form = page.getByRole('form', { name: 'Create backup job' });
  // the target node offers the members other than the runner: choose the runner first
  await form.locator(`select[name=nodeId] option[value="${runner}"]`).waitFor({ state: 'attached' });
  await form.locator('input[name=name]').fill(name);
  await form.locator('select[name=nodeId]').selectOption(runner);
  await form.locator('input[name=sourceDataset]').fill('zroot/data');
  await form.locator('select[name=targetNodeId]').selectOption(target);
  await form.locator('input[name=targetDataset]').fill('vault/backups/form');
  await form.locator('input[name=schedule]').fill('at dawn');
  await form.locator('input[name=retention]').fill('5');
  await form.getByRole('button', { name: 'Create backup job' }).click();
  // the API's own words for the same body
  const refused = await call('POST', '/cluster/backups/jobs', { token: operator, body: body('at dawn') });
  expectEnvelope(refused, 400, 'validation_failed');
  const problem = /body\.schedule: ([^;]+)/.exec(refused.body.error)![1];
  const shown = form.locator('[data-field="body.schedule"] .field-error');
  await expect(shown.textContent()).resolves.toBe(problem);
  const schedule = form.locator('input[name=schedule]');
  expect(await schedule.getAttribute('aria-invalid')).toBe('true');
  expect(await schedule.getAttribute('aria-describedby')).toBe(await shown.getAttribute('id'));
  expect(await form.locator('.field-error').count()).toBe(1);
  // the page with the problem shown: still no WCAG violation, light or dark
  expect(await axeViolations(page)).toEqual([]);
  await page.emulateMedia({ colorScheme: 'dark' });
  expect(await axeViolations(page)).toEqual([]);
  const listed = async () => (await call('GET', '/cluster/backups/jobs?size=100')).body.data.data.filter((j: { name: string }) => j.name === name);
  expect(await listed()).toEqual([]);

  await schedule.fill('15 2 * * 1');
  await form.getByRole('button', { name: 'Create backup job' }).click();
  // the answer line held the refusal until now
  await form.locator('.answer', { hasText: 'Backup job created.' }).waitFor();
  expect(await form.locator('.field-error').count()).toBe(0);
  const jobs = await listed();
  expect(jobs).toHaveLength(1);
  expect(jobs[0]).toMatchObject({
    name,
    nodeId: runner,
    sourceDataset: 'zroot/data',
    guest: null,
    target: { kind: 'node', nodeId: target, dataset: 'vault/backups/form' },
    schedule: '15 2 * * 1',
    retention: 5,
    enabled: true,
  });
  await page.locator(`tr[data-job="${jobs[0].id}"]`).waitFor();
  await context.close();
}, 60_000);

test('viewers get no backup job form', async () => {
  const job = await call('POST', '/cluster/backups/jobs', {
    token: await tokenFor('operator'),
    body: {
      name: `viewer-${randomUUID().slice(0, 8)}`,
      nodeId: await insertNode(randomUUID(), { status: 'member' }),
      source: { dataset: 'zroot/data' },
      target: { nodeId: await insertNode(randomUUID(), { status: 'member' }), dataset: 'vault/backups/viewer' },
      schedule: '0 4 * * *',
    },
  });
  expectEnvelope(job, 201);
  const { context, page } = await open('/backups', { token: await tokenFor('viewer') });
  await page.locator(`tr[data-job="${job.body.data.id}"]`).waitFor();
  expect(await page.getByRole('form', { name: 'Create backup job' }).count()).toBe(0);
  await context.close();
}, 60_000);

test('a rule edited through its form: target, filters, channels and settings are what the API lists afterwards', async () => {
  const operator = await tokenFor('operator');
  const made = await call('POST', '/notifications/rules', {
    token: operator,
    body: { templateKey: TEMPLATE, targetKey: 'tank', uiEnabled: true, config: { ntfyTopic: 'before' } },
  });
  expectEnvelope(made, 201);
  const id = made.body.data.id;
  const { context, page } = await open('/notifications', { token: operator });
  const row = page.locator(`tr[data-rule="${id}"]`);
  await row.getByText(`Edit rule ${id}`).click();
  const form = row.getByRole('form', { name: `Save rule ${id}` });
  await form.locator(`select[name=nodeId] option[value="${agent.nodeId}"]`).waitFor({ state: 'attached' });
  expect(JSON.parse(await form.locator('textarea[name=config]').inputValue())).toEqual({ ntfyTopic: 'before' });
  expect(await form.locator('select[name=targetKey]').inputValue()).toBe('tank');

  // a setting the API refuses: its problem shows at the settings
  await form.locator('textarea[name=config]').fill('{"webhookUrl": "ftp://example.org/hook"}');
  await form.getByRole('button', { name: `Save rule ${id}` }).click();
  const refused = await call('PATCH', `/notifications/rules/${id}`, { token: operator, body: { config: { webhookUrl: 'ftp://example.org/hook' } } });
  expect(refused.status).toBe(400);
  const problem = /body\.config\.webhookUrl: (.+)$/.exec(refused.body.error)![1];
  await expect(form.locator('[data-field="body.config"] .field-error').textContent()).resolves.toBe(`webhookUrl: ${problem}`);

  const config = { to: 'ops@example.org', ntfyTopic: 'edited', ntfyPriority: 'high', minSeverity: 'warning' };
  await form.locator('select[name=targetKey]').selectOption('*');
  await form.locator('input[name=taskKind]').fill('jail.migrate');
  await form.locator('select[name=nodeId]').selectOption(agent.nodeId);
  await form.locator('input[name=active]').uncheck();
  await form.locator('input[name=uiEnabled]').uncheck();
  await form.locator('input[name=emailEnabled]').check();
  await form.locator('textarea[name=config]').fill(JSON.stringify(config, null, 2));
  await form.getByRole('button', { name: `Save rule ${id}` }).click();
  await form.locator('.answer', { hasText: 'Rule saved.' }).waitFor();
  const rule = (await call('GET', '/notifications/rules')).body.data.rules.find((r: { id: number }) => r.id === id);
  expect(rule).toMatchObject({
    targetKey: '*',
    taskKind: 'jail.migrate',
    nodeId: agent.nodeId,
    active: false,
    uiEnabled: false,
    emailEnabled: true,
    ntfyEnabled: false,
  });
  expect(JSON.parse(rule.config)).toEqual(config);
  await row.locator('[data-channels]', { hasText: /^email$/ }).waitFor();
  expect(await form.locator('.field-error').count()).toBe(0);
  await context.close();
  await call('POST', '/notifications/rules/bulk-delete', { token: operator, body: { ids: [id] } });
}, 60_000);

test('a channel secret set through the form reads "set" and never reaches the page or an API answer it got', async () => {
  const secret = `console-secret-${randomUUID()}`;
  const { context, page } = await open('/notifications');
  const answers: string[] = [];
  page.on('response', async (r) => {
    if (new URL(r.url()).pathname.startsWith('/api/')) answers.push(await r.text().catch(() => ''));
  });
  const ntfy = page.locator('[data-channel=ntfy]');
  await ntfy.locator('input[name=topic]').waitFor();
  await ntfy.locator('input[name=topic]').fill('console-alerts');
  await ntfy.locator('input[name=token]').fill(secret);
  await ntfy.getByRole('button', { name: 'Save ntfy channel' }).click();
  await expect(ntfy.locator('.answer').textContent()).resolves.toBe('Channel settings saved.');
  await page.locator('[data-channel=ntfy] [data-secret=token]', { hasText: /^set$/ }).waitFor();
  const channels = (await call('GET', '/notifications/channels')).body.data;
  expect(channels.find((c: { channel: string }) => c.channel === 'ntfy').settings).toMatchObject({ topic: 'console-alerts', token: 'set' });
  expect(await page.locator('[data-channel=ntfy] input[name=token]').inputValue()).toBe('');
  expect(await page.content()).not.toContain(secret);
  expect(answers.length).toBeGreaterThan(0);
  expect(answers.filter((a) => a.includes(secret))).toEqual([]);
  await context.close();
}, 60_000);

test('a rule created through the form is listed as the API lists it; selected rules bulk-delete', async () => {
  const { context, page } = await open('/notifications');
  const before = (await call('GET', '/notifications/rules')).body.data.rules.map((r: { id: number }) => r.id);
  const form = page.getByRole('form', { name: 'Create rule' });
  await form.locator('select[name=templateKey] option').first().waitFor({ state: 'attached' });
  await form.locator('select[name=templateKey]').selectOption(TEMPLATE);
  await form.locator('select[name=targetKey] option[value=tank]').waitFor({ state: 'attached' });
  await form.locator('select[name=targetKey]').selectOption('tank');
  await form.locator('input[name=taskKind]').fill('pool.replace-device');
  await form.locator('input[name=webhookEnabled]').check();
  await form.getByRole('button', { name: 'Create rule' }).click();
  await expect(form.locator('.answer').textContent()).resolves.toBe('Rule created.');
  const rules = (await call('GET', '/notifications/rules')).body.data.rules;
  const created = rules.filter((r: { id: number }) => !before.includes(r.id));
  expect(created).toHaveLength(1);
  expect(created[0]).toMatchObject({
    templateKey: TEMPLATE,
    targetKey: 'tank',
    taskKind: 'pool.replace-device',
    webhookEnabled: true,
    uiEnabled: true,
    active: true,
  });
  const row = page.locator(`tr[data-rule="${created[0].id}"]`);
  await row.waitFor();
  expect(await row.locator('[data-channels]').textContent()).toBe('ui, webhook');
  const shown = await page.locator('tr[data-rule]').evaluateAll((rows) => rows.map((r) => Number(r.getAttribute('data-rule'))));
  expect(shown).toEqual(rules.map((r: { id: number }) => r.id));
  await row.getByRole('checkbox', { name: `Select rule ${created[0].id}` }).check();
  await page.getByRole('button', { name: 'Delete selected rules' }).click();
  await row.waitFor({ state: 'detached' });
  const after = (await call('GET', '/notifications/rules')).body.data.rules.map((r: { id: number }) => r.id);
  expect(after).not.toContain(created[0].id);
  await context.close();
}, 60_000);

test('viewers get no channel or rule forms', async () => {
  const { context, page } = await open('/notifications', { token: await tokenFor('viewer') });
  // the channels are an operator's (their GET answers a viewer 403): said, not shown as an error
  await page.locator('[data-why=channels]').waitFor();
  await page.waitForLoadState('networkidle');
  expect(await page.locator('main [role=alert]').count()).toBe(0);
  expect(await page.locator('form.action').count()).toBe(0);
  expect(await page.locator('input[type=password]').count()).toBe(0);
  await context.close();
}, 60_000);

test('the audit log filters by route', async () => {
  const route = '/api/notifications/dismiss-all';
  const { context, page } = await open('/audit');
  await page.locator('table.audit tbody tr').first().waitFor();
  await page.fill('input[name=route]', route);
  await page.getByRole('button', { name: 'Filter audit log' }).click();
  await waitUntil('only the route’s rows', async () => {
    const routes = await page.locator('table.audit tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-route')));
    return routes.length > 0 && routes.every((r) => r === route);
  });
  const expected = (await call('GET', `/audit?route=${encodeURIComponent(route)}&size=50`)).body.data.data.length;
  expect(await page.locator('table.audit tbody tr').count()).toBe(expected);
  await context.close();
}, 60_000);

const PAGES = ['/', '/guests', '/storage', '/backups', '/certificates', '/notifications', '/audit', '/jail'];

test.each(['light', 'dark'] as const)(
  'every page: 0 axe WCAG 2.1 AA violations in %s mode, screenshots kept',
  async (scheme) => {
    for (const path of PAGES) {
      const { context, page } = await open(path === '/jail' ? `/jail/${jailId}` : path, { colorScheme: scheme });
      await page.locator('header').waitFor();
      await page.locator('section.tasks li, section.tasks p').first().waitFor();
      if (path === '/notifications')
        await page.getByRole('form', { name: 'Create rule' }).locator('select[name=templateKey] option').first().waitFor({ state: 'attached' });
      if (path === '/backups')
        await page.getByRole('form', { name: 'Create backup job' }).locator('select[name=nodeId] option').first().waitFor({ state: 'attached' });
      if (path === '/jail') await page.locator('[data-fact]').first().waitFor();
      if (path === '/storage') {
        await page.selectOption('label:has-text("Node") select', agent.nodeId);
        await page.locator('[data-chart=bandwidth]:not([data-points="0"]) canvas').waitFor({ timeout: 30_000 });
      }
      expect({ path, violations: await axeViolations(page) }).toEqual({ path, violations: [] });
      const name = path === '/' ? 'overview' : path.slice(1).replace(/\//g, '-');
      await page.screenshot({ path: join(SHOTS, `console-${name}-${scheme}.png`) });
      await context.close();
    }
  },
  180_000,
);

test('a jail page shows the jail’s new node once its migration succeeds, without a reload', async () => {
  // two jail hosts; the migration's ZFS streams go through a real sshd into the target's simulated host
  const sshd = await startSshd();
  const agents: TestAgent[] = [];
  try {
    const target = await startTestAgent({
      host: testJailHost([], hostKeyFile(readFileSync(join(sshd.dir, 'host_key.pub'), 'utf8'))),
      args: ['--node-ip', '127.0.0.1'],
    });
    agents.push(target);
    const ctid = await freeGuestId();
    const source = await startTestAgent({
      host: testJailHost([{ ctid, name: 'moving', dataset: 'zroot/jails/moving', state: 'running' }]),
      args: ['--node-ip', '127.0.0.1', ...peerViaSshd(sshd, target.statePath)],
    });
    agents.push(source);
    await Promise.all([source.ready(), target.ready()]);
    await Promise.all([admitAsMember(source), admitAsMember(target)]);
    await waitUntil('the jail in the store', () =>
      testDb().selectFrom('guests').select('id').where('id', '=', ctid).where('node_id', '=', source.nodeId).executeTakeFirst(),
    );
    const { context, page } = await open(`/jail/${ctid}`, { token: await tokenFor('operator') });
    // the node by its name, linked to its page
    const nameOf = async (id: string) => String((await call('GET', `/cluster/nodes/${id}`)).body.data.name);
    const nodeLink = (id: string, name: string) => page.locator(`[data-fact=nodeId] a[href="#/node/${id}"]`, { hasText: name });
    await nodeLink(source.nodeId, await nameOf(source.nodeId)).waitFor();
    // a mark that a reload would wipe
    await page.evaluate(() => ((globalThis as unknown as { unreloaded: boolean }).unreloaded = true));
    const form = page.getByRole('form', { name: 'Migrate' });
    await form.locator(`select[name=target] option[value="${target.nodeId}"]`).waitFor({ state: 'attached' });
    await form.locator('select[name=target]').selectOption(target.nodeId);
    await form.getByRole('button', { name: 'Migrate' }).click();
    await expect(form.locator('.answer').textContent()).resolves.toBe('Migration queued: follow it in the task panel.');
    const task = await waitUntil('the migration task', () =>
      testDb().selectFrom('tasks').select('id').where('kind', '=', 'jail.migrate').where('resource', '=', `jail:${ctid}`).executeTakeFirst(),
    );
    expect((await waitForTask(task.id, ['success', 'failed'], 90_000)).status).toBe('success');
    await nodeLink(target.nodeId, await nameOf(target.nodeId)).waitFor({ timeout: 20_000 });
    expect((await call('GET', `/jail/${ctid}`)).body.data.nodeId).toBe(target.nodeId);
    expect(await page.evaluate(() => (globalThis as unknown as { unreloaded?: boolean }).unreloaded)).toBe(true);
    await context.close();
  } finally {
    for (const a of agents) await a.kill();
    await sshd.stop();
  }
}, 150_000);

test('a jail page’s power buttons: Stop asks first naming the jail, the task shows in the panel, the state follows', async () => {
  const { context, page } = await open(`/jail/${jailId}`, { token: await tokenFor('operator') });
  const state = page.locator('[data-fact=state]');
  await expect(state.textContent()).resolves.toBe('running');
  const power = page.getByRole('region', { name: 'Power' });
  await power.getByRole('button', { name: 'Stop', exact: true }).click();
  const ask = power.getByRole('alertdialog');
  await expect(ask.textContent()).resolves.toContain(`Stop jail web (${jailId})?`);
  // nothing is queued until the operator confirms
  expect(await testDb().selectFrom('tasks').select('id').where('resource', '=', `jail:${jailId}`).where('kind', '=', 'jail.power').execute()).toEqual([]);
  await ask.getByRole('button', { name: 'Stop web' }).click();
  await expect(power.locator('.answer').textContent()).resolves.toBe('Queued: follow it in the task panel.');
  const stop = await waitUntil('the stop task', () =>
    testDb().selectFrom('tasks').select('id').where('kind', '=', 'jail.power').where('resource', '=', `jail:${jailId}`).executeTakeFirst(),
  );
  await taskRow(page, stop.id).waitFor();
  expect((await waitForTask(stop.id, ['success', 'failed'], 30_000)).status).toBe('success');
  await page.locator('[data-fact=state]', { hasText: 'stopped' }).waitFor({ timeout: 20_000 });
  // Start asks nothing; a second Start answers that it already runs
  await power.getByRole('button', { name: 'Start', exact: true }).click();
  await page.locator('[data-fact=state]', { hasText: 'running' }).waitFor({ timeout: 20_000 });
  await power.getByRole('button', { name: 'Start', exact: true }).click();
  await power.locator('.answer', { hasText: 'The jail is already running: nothing to do.' }).waitFor();
  expect(await axeViolations(page)).toEqual([]);
  await context.close();
}, 60_000);

test('a VM page shows its node by name and its saved cloud-init; saving one field keeps the others', async () => {
  const operator = await tokenFor('operator');
  await waitUntil('the VM in the store', () => testDb().selectFrom('guests').select('id').where('id', '=', vmRid).executeTakeFirst());
  const set = await call('PUT', `/vm/${vmRid}/options/cloud-init`, {
    token: operator,
    body: { data: '#cloud-config\nhostname: app\n', metadata: 'instance-id: app\n', networkConfig: '' },
  });
  expect((await waitForTask(set.body.data.taskId, ['success', 'failed'], 30_000)).status).toBe('success');
  const { context, page } = await open(`/vm/${vmRid}`, { token: operator });
  const node = String((await call('GET', `/cluster/nodes/${agent.nodeId}`)).body.data.name);
  await page.locator(`[data-fact=nodeId] a[href="#/node/${agent.nodeId}"]`, { hasText: node }).waitFor();
  const form = page.getByRole('form', { name: 'Save cloud-init' });
  await expect(form.locator('textarea[name=data]').inputValue()).resolves.toBe('#cloud-config\nhostname: app\n');
  await expect(form.locator('textarea[name=metadata]').inputValue()).resolves.toBe('instance-id: app\n');
  // the operator changes the meta-data alone: the user data saved before stays
  await form.locator('textarea[name=metadata]').fill('instance-id: app-2\n');
  await form.getByRole('button', { name: 'Save cloud-init' }).click();
  const task = await waitUntil('the second cloud-init task', () =>
    testDb()
      .selectFrom('tasks')
      .select('id')
      .where('kind', '=', 'vm.cloud-init')
      .where('resource', '=', `vm:${vmRid}`)
      .where('id', '>', set.body.data.taskId)
      .executeTakeFirst(),
  );
  expect((await waitForTask(task.id, ['success', 'failed'], 30_000)).status).toBe('success');
  expect((await call('GET', `/vm/${vmRid}`, { token: operator })).body.data.options.cloudInit).toMatchObject({
    data: '#cloud-config\nhostname: app\n',
    metadata: 'instance-id: app-2\n',
  });
  await context.close();
}, 60_000);

test('a jail page’s snapshots: take two, roll back past the newer one (the question names the jail and what goes), destroy', async () => {
  const { context, page } = await open(`/jail/${jailId}`, { token: await tokenFor('operator') });
  const section = page.getByRole('region', { name: 'Snapshots' });
  const row = (snap: string) => section.locator('tbody tr', { has: page.getByRole('cell', { name: snap, exact: true }) });
  const take = section.getByRole('form', { name: 'Take snapshot' });
  const snapTasks = (kind: string) =>
    testDb().selectFrom('tasks').select(['id', 'status']).where('kind', '=', kind).where('resource', '=', `jail:${jailId}`).orderBy('id').execute();
  for (const name of ['first', 'second']) {
    await take.locator('input[name=name]').fill(name);
    await take.getByRole('button', { name: 'Take snapshot' }).click();
    // the list follows the task and the inventory after it, without a reload
    await row(`tank/jails/web@${name}`).waitFor({ timeout: 30_000 });
  }
  expect((await snapTasks('snapshot.create')).map((t) => t.status)).toEqual(['success', 'success']);

  // a dismissed question queues nothing
  const asked: string[] = [];
  page.once('dialog', (d) => void (asked.push(d.message()), d.dismiss()));
  await section.getByRole('button', { name: 'Roll back to tank/jails/web@first' }).click();
  await waitUntil('the question', async () => asked.length === 1, 10_000, 50);
  expect(await snapTasks('snapshot.rollback')).toEqual([]);

  page.once('dialog', (d) => void (asked.push(d.message()), d.accept()));
  await section.getByRole('button', { name: 'Roll back to tank/jails/web@first' }).click();
  await row('tank/jails/web@second').waitFor({ state: 'detached', timeout: 30_000 });
  expect(asked).toEqual([
    `Roll jail ${jailId} (web) back to tank/jails/web@first? This destroys the newer snapshots: tank/jails/web@second.`,
    `Roll jail ${jailId} (web) back to tank/jails/web@first? This destroys the newer snapshots: tank/jails/web@second.`,
  ]);
  expect((await snapTasks('snapshot.rollback')).map((t) => t.status)).toEqual(['success']);
  await expect(row('tank/jails/web@first').count()).resolves.toBe(1);

  page.once('dialog', (d) => void (asked.push(d.message()), d.accept()));
  await section.getByRole('button', { name: 'Destroy tank/jails/web@first' }).click();
  await row('tank/jails/web@first').waitFor({ state: 'detached', timeout: 30_000 });
  expect(asked[2]).toBe(`Destroy snapshot tank/jails/web@first of jail ${jailId} (web)? It cannot be undone.`);
  expect((await snapTasks('snapshot.destroy')).map((t) => t.status)).toEqual(['success']);
  expect((await call('GET', `/guests/jail/${jailId}/snapshots`)).body.data.snapshots).toEqual([]);
  expect(await axeViolations(page)).toEqual([]);
  await context.close();
}, 120_000);

test('keyboard: Tab reaches the navigation, the bell and the task panel’s actions', async () => {
  const { context, page } = await open('/');
  await page.locator('header').waitFor();
  const reached = new Set<string>();
  for (let i = 0; i < 40; i++) {
    await page.keyboard.press('Tab');
    const focused = "(document.activeElement && (document.activeElement.textContent.trim() || document.activeElement.getAttribute('aria-label'))) || ''";
    reached.add(await page.evaluate<string>(focused));
  }
  expect([...reached]).toEqual(expect.arrayContaining(['Overview', 'Guests', 'Storage']));
  expect([...reached].some((r) => r.startsWith('Notifications:'))).toBe(true);
  await context.close();
}, 60_000);

test('no request outside the API origin and no uncaught error, all along', () => {
  expect(foreign).toEqual([]);
  expect(pageErrors).toEqual([]);
});
