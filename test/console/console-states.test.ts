// @tier e2e
import { createServer, connect, type Server, type Socket } from 'node:net';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { adminToken, apiUrl, call, expectEnvelope, testDb, tokenFor } from '../helpers/api.ts';
import { insertNode, waitUntil } from '../helpers/agent.ts';
import { createHost } from '../http/zfs-fixtures.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Kysely } from 'kysely';
import { freePort } from '#scripts/stack/ports';
import { startOwnStack, type OwnStack } from '../helpers/own-stack.ts';
import { createDb } from '#store/db';
import type { Database } from '#store/tables';
import { createToken } from '#shared/auth/tokens';

/**
 * The console's honest states in a real browser (the system's Chromium) against the suite's stack: an error
 * reads in the error style with the API's words, never the success style; a call in flight disables what sent
 * it, so a second click or submit sends nothing; with the API gone a banner says so and, once it is back, the
 * page reads its data again without a reload; the task panel collapses (remembered) and filters by status, kind
 * and node; the backups page edits, runs and deletes a job.
 *
 * The outage, twice: the browser reaches the API through a TCP relay on its own port, and the relay stops
 * listening (connections refused, open ones cut) and starts again on the same port; and a stack of the test's own
 * (its own ports and PGlite data dir) is stopped whole mid-session — serverless-offline, fauxqs, the store — and
 * started again on the same ports and data dir. The suite's stack serves the other test files of this worker, so
 * it stays up.
 */

let browser: Browser;
let origin: string;
const pageErrors: string[] = [];

/** A TCP relay to the API that can stop listening and start again on the same port. */
class Relay {
  private server: Server | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;
  constructor(private readonly target: URL) {}
  async start(): Promise<void> {
    const server = createServer((client) => {
      const upstream = connect(Number(this.target.port), this.target.hostname);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => s.destroy());
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', () => resolve());
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }
  async stop(): Promise<void> {
    const server = this.server;
    this.server = null;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

async function open(path: string, opts: { token?: string; base?: string } = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  await context.addInitScript((t) => sessionStorage.setItem('hostmgr.token', t), opts.token ?? adminToken());
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${opts.base ?? origin}/#${path}`, { waitUntil: 'load' });
  return { context, page };
}

/** The page's window, typed for what these tests read (the suite compiles without the DOM library). */
type Styled = { getComputedStyle: (el: unknown, pseudo?: string) => { color: string; borderLeftWidth: string; content: string; overflowY: string } };

/** How an outcome line looks: its colour, its left border, and what its ::before adds. */
const looks = (line: import('playwright-core').Locator) =>
  line.evaluate((el) => {
    // runs in the page: only the page's own globals are in scope
    const window = globalThis as unknown as Styled;
    const style = window.getComputedStyle(el);
    return { color: style.color, border: style.borderLeftWidth, before: window.getComputedStyle(el, '::before').content };
  });

/** A backup job the API takes: a runner and a target that are members (no agent: its runs stay queued). */
async function backupJob(name: string): Promise<number> {
  const runner = await insertNode(randomUUID(), { status: 'member' });
  const target = await insertNode(randomUUID(), { status: 'member' });
  const res = await call('POST', '/cluster/backups/jobs', {
    token: await tokenFor('operator'),
    body: {
      name,
      nodeId: runner,
      source: { dataset: 'zroot/data' },
      target: { nodeId: target, dataset: `vault/backups/${name}` },
      schedule: '0 3 * * *',
      retention: 3,
    },
  });
  expectEnvelope(res, 201);
  return res.body.data.id;
}

beforeAll(async () => {
  origin = new URL(apiUrl()).origin;
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
}, 60_000);

afterAll(async () => {
  await browser?.close();
});

test('an error reads in the error style with the API’s words; a success in the success style', async () => {
  // a job as the old demo seed had it: no target, so the API refuses to run it (409 backup_job_has_no_target)
  const runner = await insertNode(randomUUID(), { status: 'member' });
  const bare = `bare-${randomUUID().slice(0, 8)}`;
  await testDb()
    .insertInto('backup_jobs')
    .values({ name: bare, node_id: runner, mode: 'full', source_dataset: 'zroot/data', target_endpoint: 'nowhere', schedule: '', enabled: false })
    .execute();
  const ok = `ok-${randomUUID().slice(0, 8)}`;
  await backupJob(ok);
  const { context, page } = await open('/backups', { token: await tokenFor('operator') });
  await page.getByRole('button', { name: `Run ${bare}` }).click();
  const error = page.locator('p.error[role=alert]');
  await error.waitFor();
  expect(await error.textContent()).toContain('The backup job has no target');
  expect(await error.textContent()).toMatch(/has no target; set one with PUT/);
  expect(await page.locator('p.answer').count()).toBe(0);
  const errorStyle = await looks(error);

  await page.getByRole('button', { name: `Run ${ok}` }).click();
  const answer = page.locator('p.answer[role=status]');
  await answer.waitFor();
  expect(await answer.textContent()).toContain('Backup run queued');
  expect(await page.locator('p.error[role=alert]').count()).toBe(0);
  const successStyle = await looks(answer);
  expect(successStyle.color).not.toBe(errorStyle.color);
  expect(successStyle.before).not.toBe(errorStyle.before);
  expect(errorStyle.border).not.toBe('0px');
  await context.close();
}, 60_000);

test('busy: while a call is in flight its button is disabled and a second click or submit sends nothing', async () => {
  const name = `busy-${randomUUID().slice(0, 8)}`;
  const id = await backupJob(name);
  const { context, page } = await open('/backups', { token: await tokenFor('operator') });
  // the API answers 2 s late, as on a slow network
  const runs: string[] = [];
  await page.route(`**/api/cluster/backups/jobs/${id}/run`, async (route) => {
    runs.push(route.request().method());
    await new Promise((r) => setTimeout(r, 2000));
    await route.continue();
  });
  const run = page.getByRole('button', { name: `Run ${name}` });
  await run.click();
  await waitUntil('the Run button disabled while its call is in flight', async () => run.isDisabled());
  // a second click on the disabled button, dispatched as a user's would be, and one straight to the handler
  await run.click({ force: true });
  await run.evaluate((b) => (b as unknown as { click: () => void }).click());
  await page.locator('p.answer[role=status]').waitFor();
  expect(await run.isEnabled()).toBe(true);
  expect(runs).toEqual(['POST']);
  expect((await call('GET', `/cluster/backups/events/remote?jobId=${id}`)).body.data.data).toHaveLength(1);

  // a form: submitted twice while the first is in flight, one job is created
  const formName = `busy-form-${randomUUID().slice(0, 8)}`;
  const creates: string[] = [];
  await page.route('**/api/cluster/backups/jobs', async (route) => {
    if (route.request().method() !== 'POST') return route.continue();
    creates.push(route.request().postData() ?? '');
    await new Promise((r) => setTimeout(r, 2000));
    await route.continue();
  });
  const form = page.getByRole('form', { name: 'Create backup job' });
  const runner = await insertNode(randomUUID(), { status: 'member' });
  const target = await insertNode(randomUUID(), { status: 'member' });
  await page.reload({ waitUntil: 'load' });
  await form.locator(`select[name=nodeId] option[value="${runner}"]`).waitFor({ state: 'attached' });
  await form.locator('input[name=name]').fill(formName);
  await form.locator('select[name=nodeId]').selectOption(runner);
  await form.locator('select[name=targetNodeId]').selectOption(target);
  await form.locator('input[name=sourceDataset]').fill('zroot/data');
  await form.locator('input[name=targetDataset]').fill('vault/backups/busy');
  await form.locator('input[name=schedule]').fill('0 5 * * *');
  const submit = form.locator('button[type=submit]');
  await submit.click();
  await waitUntil('the submit button disabled while the form is sent', async () => submit.isDisabled());
  expect(await form.getAttribute('aria-busy')).toBe('true');
  await form.evaluate((f) => (f as unknown as { requestSubmit: () => void }).requestSubmit());
  await form.locator('p.answer', { hasText: 'Backup job created.' }).waitFor();
  expect(creates).toHaveLength(1);
  const listed = (await call('GET', '/cluster/backups/jobs?size=100')).body.data.data.filter((j: { name: string }) => j.name === formName);
  expect(listed).toHaveLength(1);
  await context.close();
}, 90_000);

test('the API gone: a banner says so; back: the page reads its data again without a reload', async () => {
  const relay = new Relay(new URL(apiUrl()));
  await relay.start();
  const base = `http://127.0.0.1:${relay.port}`;
  try {
    const before = `before-${randomUUID().slice(0, 8)}`;
    await backupJob(before);
    const { context, page } = await open('/backups', { base, token: await tokenFor('operator') });
    await page.locator('tr[data-job]', { hasText: before }).waitFor();
    expect(await page.locator('[data-banner=offline]').count()).toBe(0);

    await relay.stop();
    // the task panel polls every 1.5 s: its next call finds no API
    await page.locator('[data-banner=offline]').waitFor({ timeout: 20_000 });
    expect(await page.locator('[data-banner=offline]').textContent()).toContain('The API cannot be reached');
    await page.locator('.tasks', { hasText: 'these tasks are as last read' }).waitFor();
    // what changes while the console cannot see it
    const during = `during-${randomUUID().slice(0, 8)}`;
    const id = await backupJob(during);
    expect(await page.locator(`tr[data-job="${id}"]`).count()).toBe(0);

    await relay.start();
    await page.locator('[data-banner=offline]').waitFor({ state: 'detached', timeout: 20_000 });
    // the backups page does not poll: the job appears because the page read its list again when the API came back
    await page.locator(`tr[data-job="${id}"]`).waitFor({ timeout: 20_000 });
    expect(await page.locator('tr[data-job]', { hasText: before }).count()).toBe(1);
    await context.close();
  } finally {
    await relay.stop();
  }
}, 90_000);

/** A member node written as the agent's registration would leave it (the job's runner and target). */
const memberNode = (db: Kysely<Database>) => {
  const id = randomUUID();
  return db
    .insertInto('nodes')
    .values({
      id,
      name: `node-${id.slice(0, 8)}`,
      ip: '192.0.2.10',
      status: 'member',
      inventory: JSON.stringify({ hostname: `node-${id.slice(0, 8)}`, os: 'FreeBSD 14.3-RELEASE', cpus: 4, memoryBytes: 1 }),
      last_seen_at: new Date(),
      heartbeat_interval_s: 10,
    })
    .execute()
    .then(() => id);
};

test('the whole stack stopped mid-session and started again: a banner, then the page’s data again, same token', async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hm-outage-'));
  const ports = { http: await freePort(), lambda: await freePort(), pglite: await freePort(), queue: await freePort() };
  const cfg = { dataDir: join(dataDir, 'pglite'), logDir: join(dataDir, 'logs'), ports };
  mkdirSync(cfg.logDir, { recursive: true });
  let stack: OwnStack | null = await startOwnStack(cfg);
  try {
    const api = stack.apiUrl!;
    const base = new URL(api).origin;
    // an operator token in this stack's store: what the console signs in with, kept across the restart
    let db = createDb(stack.databaseUrl, 1);
    const { token } = await createToken(db, { name: 'outage operator', role: 'operator', nodeId: null });
    const [runner, target] = [await memberNode(db), await memberNode(db)];
    await db.destroy();
    const name = `before-${randomUUID().slice(0, 8)}`;
    const created = await fetch(`${api}/cluster/backups/jobs`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        name,
        nodeId: runner,
        source: { dataset: 'zroot/data' },
        target: { nodeId: target, dataset: `vault/backups/${name}` },
        schedule: '0 3 * * *',
        retention: 3,
      }),
    });
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { data: { id: number } }).data.id;

    const { context, page } = await open('/backups', { base, token });
    await page.locator(`tr[data-job="${id}"]`, { hasText: name }).waitFor();
    expect(await page.locator('[data-banner=offline]').count()).toBe(0);
    // a reload would clear this; the page must come back without one
    await page.evaluate('window.__sameDocument = true');

    // serverless-offline, fauxqs, the sweepers and the store: all of it
    await stack.stop();
    stack = null;
    await page.locator('[data-banner=offline]').waitFor({ timeout: 20_000 });
    expect(await page.locator('[data-banner=offline]').textContent()).toContain('The API cannot be reached');

    // what changes while the console cannot see it: the job renamed in the store itself (its data dir, the API
    // down), so only a fresh read can show the new name
    const renamed = `after-${randomUUID().slice(0, 8)}`;
    const store = await startOwnStack(cfg, true);
    db = createDb(store.databaseUrl, 1);
    await db.updateTable('backup_jobs').set({ name: renamed }).where('id', '=', id).execute();
    await db.destroy();
    await store.stop();
    expect(await page.locator('[data-banner=offline]').count()).toBe(1);

    stack = await startOwnStack(cfg);
    expect(new URL(stack.apiUrl!).origin).toBe(base);
    await page.locator('[data-banner=offline]').waitFor({ state: 'detached', timeout: 60_000 });
    // the backups page does not poll: the new name shows because the page read its list again
    await page.locator(`tr[data-job="${id}"]`, { hasText: renamed }).waitFor({ timeout: 20_000 });
    await expect(page.evaluate('window.__sameDocument')).resolves.toBe(true);
    // the token the console holds still works against the restarted stack
    const again = await fetch(`${stack.apiUrl}/cluster/backups/jobs`, { headers: { authorization: `Bearer ${token}` } });
    expect(again.status).toBe(200);
    expect(JSON.stringify(await again.json())).toContain(renamed);
    await context.close();
  } finally {
    await stack?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 240_000);

test('the task panel collapses (remembered across a reload) and filters by status, kind and node', async () => {
  const operator = await tokenFor('operator');
  // nodes without agents: their tasks stay queued
  const [one, two] = [await createHost(), await createHost()];
  const queue = async (host: Awaited<ReturnType<typeof createHost>>) => {
    const res = await call('POST', `/zfs/pools/${host.tank.guid}/replace-device`, { body: { old: 'ada1', new: 'ada4' }, token: operator });
    expectEnvelope(res, 202);
    return res.body.data.id as number;
  };
  const [first, second] = [await queue(one), await queue(two)];
  const { context, page } = await open('/', { token: operator });
  const panel = page.locator('section.tasks');
  await panel.locator(`li[data-task-id="${first}"]`).waitFor({ timeout: 20_000 });

  await panel.locator('select[name=status]').selectOption('queued');
  await panel.locator('select[name=kind]').selectOption('pool.replace-device');
  await panel.locator(`select[name=nodeId] option[value="${one.nodeId}"]`).waitFor({ state: 'attached' });
  await panel.locator('select[name=nodeId]').selectOption(one.nodeId);
  await waitUntil('only the first node’s queued replacements listed', async () => {
    const ids = await panel.locator('li[data-task-id]').evaluateAll((lis) => lis.map((li) => Number(li.getAttribute('data-task-id'))));
    return ids.includes(first) && !ids.includes(second);
  });
  const shown = await panel
    .locator('li[data-task-id]')
    .evaluateAll((lis) => lis.map((li) => ({ status: li.getAttribute('data-status'), kind: li.getAttribute('data-kind') })));
  expect(shown.every((t) => t.status === 'queued' && t.kind === 'pool.replace-device')).toBe(true);
  const api = (await call('GET', `/tasks?status=queued&kind=pool.replace-device&nodeId=${one.nodeId}&size=30`)).body.data.data.map((t: { id: number }) => t.id);
  const ids = await panel.locator('li[data-task-id]').evaluateAll((lis) => lis.map((li) => Number(li.getAttribute('data-task-id'))));
  expect([...ids].sort()).toEqual([...api].sort());
  await panel.getByRole('button', { name: 'Clear task filter' }).click();
  await panel.locator(`li[data-task-id="${second}"]`).waitFor();

  // its list scrolls within a bounded height, and a keyboard can reach it
  const list = panel.locator('.task-list');
  expect(await list.evaluate((el) => (globalThis as unknown as Styled).getComputedStyle(el).overflowY)).toBe('auto');
  const { height } = (await list.boundingBox())!;
  expect(height).toBeLessThanOrEqual(900 * 0.24 + 1);
  expect(await list.getAttribute('tabindex')).toBe('0');

  const toggle = panel.getByRole('button', { name: 'Hide tasks' });
  expect(await toggle.getAttribute('aria-expanded')).toBe('true');
  await toggle.click();
  expect(await panel.locator('li[data-task-id]').count()).toBe(0);
  const show = panel.getByRole('button', { name: /^Show tasks/ });
  expect(await show.getAttribute('aria-expanded')).toBe('false');
  await page.reload({ waitUntil: 'load' });
  await panel.getByRole('button', { name: /^Show tasks/ }).waitFor();
  expect(await panel.locator('li[data-task-id]').count()).toBe(0);
  await panel.getByRole('button', { name: /^Show tasks/ }).click();
  await panel.locator(`li[data-task-id="${first}"]`).waitFor({ timeout: 20_000 });
  await context.close();
  for (const id of [first, second]) await call('POST', `/tasks/${id}/cancel`, { token: operator });
}, 90_000);

test('backups: a job edited through its form, run, and deleted is what the API then says', async () => {
  const operator = await tokenFor('operator');
  const name = `edit-${randomUUID().slice(0, 8)}`;
  const id = await backupJob(name);
  const { context, page } = await open('/backups', { token: operator });
  const row = page.locator(`tr[data-job="${id}"]`);
  await row.getByRole('button', { name: `Edit ${name}` }).click();
  const form = page.getByRole('form', { name: `Save backup job ${name}` });
  // the form starts from the job as the API has it
  expect(await form.locator('input[name=name]').inputValue()).toBe(name);
  expect(await form.locator('input[name=schedule]').inputValue()).toBe('0 3 * * *');
  expect(await form.locator('input[name=targetDataset]').inputValue()).toBe(`vault/backups/${name}`);
  await form.locator('input[name=schedule]').fill('5 4 * * *');
  await form.locator('input[name=retention]').fill('9');
  await form.locator('button[type=submit]').click();
  await form.locator('p.answer', { hasText: 'Backup job saved.' }).waitFor();
  const saved = (await call('GET', `/cluster/backups/jobs/${id}`)).body.data;
  expect(saved).toMatchObject({ name, schedule: '5 4 * * *', retention: 9, target: { kind: 'node', dataset: `vault/backups/${name}` } });
  await row.locator('td', { hasText: '5 4 * * *' }).waitFor();

  await row.getByRole('button', { name: `Run ${name}` }).click();
  await page.locator('p.answer', { hasText: 'Backup run queued' }).waitFor();
  const events = (await call('GET', `/cluster/backups/events/remote?jobId=${id}`)).body.data.data;
  expect(events).toHaveLength(1);
  await page.locator(`tr[data-event="${events[0].id}"]`).waitFor({ timeout: 20_000 });
  // the run's task (queued: its runner has no agent) must end before the job may go (409 backup_job_busy)
  const runTask = (await call('GET', `/tasks?resource=${encodeURIComponent(`backup-job:${id}`)}`)).body.data.data[0];
  expectEnvelope(await call('POST', `/tasks/${runTask.id}/cancel`, { token: operator }), 200, 'task_cancelled');

  const questions: string[] = [];
  page.on('dialog', (d) => {
    questions.push(d.message());
    void d.accept();
  });
  await row.getByRole('button', { name: `Delete ${name}` }).click();
  await page.locator('p.answer', { hasText: 'Backup job deleted.' }).waitFor();
  await row.waitFor({ state: 'detached' });
  expect(questions[0]).toContain(`Delete backup job ${name}`);
  expectEnvelope(await call('GET', `/cluster/backups/jobs/${id}`), 404, 'backup_job_not_found');
  await context.close();
}, 90_000);

test('no uncaught error in the pages, all along', () => {
  expect(pageErrors).toEqual([]);
});
