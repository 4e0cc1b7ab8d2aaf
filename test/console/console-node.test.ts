// @tier e2e
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { adminToken, apiUrl, call, testDb, tokenFor } from '../helpers/api.ts';
import { admitAsMember, startTestAgent, waitForTask, waitUntil, type TestAgent } from '../helpers/agent.ts';
import { freeGuestId } from '../http/jail-setup.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';
import { consoleTestHost } from '../helpers/console-host.ts';

/**
 * The console's node page, its phone layout and its accessibility, in the system's Chromium against the suite's
 * stack with one agent on a simulated host (a mirrored pool, a free disk, a jail, RACCT off as GENERIC has it):
 * the page shows what the API reports about the node — its facts, each capability as yes/no with the fix when
 * missing, its guests, its pools as a vdev tree with error counters, its free disks — and an E7 replacement
 * asked from a vdev row (after a confirmation naming both disks) is followed in the task panel to success and
 * the tree then shows the new disk without a reload. At 390 px no page scrolls sideways and the navigation and
 * Sign out stay on screen; times carry their zone with UTC on hover; chart axes never repeat a label; on every
 * page, in both themes, for every role, axe finds no serious or critical violation (nor any WCAG 2.1 AA one);
 * viewers are told why they cannot act. HM_CONSOLE_SCREENSHOTS=<dir> keeps the node page and phone screenshots.
 */
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const SHOTS = process.env.HM_CONSOLE_SCREENSHOTS ?? join(tmpdir(), 'hm-console-shots');
const ROLES = ['viewer', 'operator', 'admin'] as const;
type Role = (typeof ROLES)[number];

const BOOTED_AT = Date.now() - ((3 * 24 + 4) * 3600 + 10 * 60) * 1000;
let browser: Browser;
let origin: string;
let agent: TestAgent;
let jailId: number;
const pageErrors: string[] = [];

interface OpenOptions {
  token?: string;
  colorScheme?: 'light' | 'dark';
  width?: number;
  height?: number;
  timezoneId?: string;
}

async function open(path: string, o: OpenOptions = {}): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({
    viewport: { width: o.width ?? 1280, height: o.height ?? 900 },
    colorScheme: o.colorScheme ?? 'light',
    timezoneId: o.timezoneId ?? 'UTC',
    isMobile: (o.width ?? 1280) < 500,
  });
  await context.addInitScript((t) => sessionStorage.setItem('hostmgr.token', t), o.token ?? adminToken());
  const page = await context.newPage();
  page.on('pageerror', (e) => pageErrors.push(e.message));
  await page.goto(`${origin}/#${path}`, { waitUntil: 'load' });
  return { context, page };
}

/** axe-core's WCAG 2.0/2.1 A and AA rules, with each violation's impact. */
async function axeViolations(page: Page): Promise<Array<{ id: string; impact: string; targets: string }>> {
  await page.evaluate(AXE);
  const result = await page.evaluate(() =>
    (
      globalThis as unknown as {
        axe: { run: (c: unknown) => Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: unknown }> }> }> };
      }
    ).axe.run({
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
      // every violation in full; passes and the rest are not collected (axe-core's option for speed)
      resultTypes: ['violations'],
    }),
  );
  return result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => JSON.stringify(n.target)).join(' ') }));
}

const taskRow = (page: Page, id: number) => page.locator(`li[data-task-id="${id}"]`);
const pages = (role: Role) => [
  '/',
  '/guests',
  '/storage',
  '/backups',
  '/certificates',
  '/notifications',
  ...(role === 'admin' ? ['/audit'] : []),
  `/jail/${jailId}`,
  `/node/${agent.nodeId}`,
];
const shotName = (path: string) => (path === '/' ? 'overview' : path.startsWith('/node/') ? 'node' : path.startsWith('/jail/') ? 'jail' : path.slice(1));

/** The page has its data: the heading, the task panel's first answer, and the page's own first rows. */
async function settled(page: Page, path: string): Promise<void> {
  await page.locator('main h1').waitFor();
  await page.locator('section.tasks li, section.tasks p').first().waitFor();
  if (path.startsWith('/node/')) await page.locator('tr[data-vdev]').first().waitFor();
  if (path.startsWith('/jail/')) await page.locator('[data-fact]').first().waitFor();
  if (path === '/') await page.locator('tr[data-node]').first().waitFor();
  if (path === '/certificates') await page.locator('main tbody tr').first().waitFor();
  if (path === '/storage') await page.locator('[data-chart=bandwidth] canvas').waitFor({ timeout: 30_000 });
  await page.waitForLoadState('networkidle');
}

beforeAll(async () => {
  origin = new URL(apiUrl()).origin;
  jailId = await freeGuestId();
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  mkdirSync(SHOTS, { recursive: true });
  agent = await startTestAgent({
    // booted 3 d 4 h 10 min ago: the page's host uptime reads "3 d 4 h" for the next 50 minutes
    host: { ...consoleTestHost(jailId), bootTimeMs: BOOTED_AT },
    env: { HM_SIM_RESILVER_MS: '3000', HM_RESILVER_POLL_MS: '150', HM_TELEMETRY_INTERVAL: '1', HM_TELEMETRY_BATCH_INTERVAL: '3' },
  });
  await agent.ready();
  await admitAsMember(agent);
  await waitUntil(
    'the node’s pools in its inventory',
    async () => (await call('GET', `/cluster/nodes/${agent.nodeId}`)).body.data.inventory?.pools?.length > 0,
  );
  // a certificate with a failed issuance: its long fingerprint and error once made the page 1515 px wide
  await testDb()
    .insertInto('certificates')
    .values({
      node_id: agent.nodeId,
      name: 'wide',
      domain: 'a-rather-long-host-name-for-the-phone-layout.example.org',
      type: 'managed',
      issuance_status: 'failed',
      issuance_error: 'acme: urn:ietf:params:acme:error:dns: no valid A/AAAA records found for a-rather-long-host-name-for-the-phone-layout.example.org',
      fingerprint: Array.from({ length: 32 }, (_, i) => (i * 7 + 16).toString(16).toUpperCase().padStart(2, '0')).join(':'),
      updated_at: new Date(),
    })
    .execute();
}, 120_000);

afterAll(async () => {
  await browser?.close();
});

test('the node page shows what the API reports: facts, capabilities with their fixes, guests, the vdev tree, free disks', async () => {
  const node = (await call('GET', `/cluster/nodes/${agent.nodeId}`)).body.data;
  const { context, page } = await open(`/node/${agent.nodeId}`, { token: await tokenFor('viewer') });
  await page.locator('tr[data-vdev]').first().waitFor();
  await expect(page.locator('main h1').textContent()).resolves.toBe(`Node ${node.name}`);
  await expect(page.locator('[data-fact=cpus]').textContent()).resolves.toBe(String(node.inventory.cpus));
  await expect(page.locator('[data-fact=memory]').textContent()).resolves.toBe('8.0 GiB');
  await expect(page.locator('[data-fact=osrelease]').textContent()).resolves.toBe(`${node.capabilities.osrelease} (${node.capabilities.osreldate})`);
  await expect(page.locator('[data-fact=agentVersion]').textContent()).resolves.toBe(node.agentVersion);
  // the host's uptime from its kern.boottime (the API carries it as Unix seconds), the agent's own beside it
  expect(node.inventory.bootTime).toBe(Math.floor(BOOTED_AT / 1000));
  await expect(page.locator('[data-fact=uptime]').textContent()).resolves.toMatch(/^3 d 4 h, since .+/);
  await expect(page.locator('[data-fact=uptime] time').getAttribute('datetime')).resolves.toBe(new Date(Math.floor(BOOTED_AT / 1000) * 1000).toISOString());
  await expect(page.locator('[data-fact=agentUptime]').textContent()).resolves.toMatch(/^\d+ (s|min)/);

  // each capability as yes/no as the API reports it; a missing one says what to do
  expect(node.capabilities.racct).toBe(false);
  const racct = page.locator('tr[data-capability=racct]');
  await expect(racct.getAttribute('data-available')).resolves.toBe('no');
  await expect(racct.textContent()).resolves.toContain('Set kern.racct.enable=1 in /boot/loader.conf and reboot the host.');
  await expect(page.locator('tr[data-capability=zfs]').getAttribute('data-available')).resolves.toBe(node.capabilities.zfsVersion ? 'yes' : 'no');
  await expect(page.locator('tr[data-capability=libvirt]').getAttribute('data-available')).resolves.toBe(node.capabilities.libvirtVersion ? 'yes' : 'no');
  const yes = await page.locator('tr[data-capability][data-available=yes]').evaluateAll((rows) => rows.map((r) => r.textContent ?? ''));
  expect(yes.filter((t) => t.includes('When missing') || /reboot|pkg install|sysrc/.test(t))).toEqual([]);

  await page.locator(`li[data-guest="jail-${jailId}"] a[href="#/jail/${jailId}"]`).waitFor();
  // the vdev tree: the mirror and its disks, each with its state and its read / write / cksum counters
  const rows = await page
    .locator('section[data-pool=tank] tr[data-vdev]')
    .evaluateAll((trs) => trs.map((tr) => [tr.getAttribute('data-vdev'), tr.getAttribute('data-state'), tr.querySelector('[data-errors]')?.textContent]));
  expect(rows).toEqual([
    ['mirror-0', 'ONLINE', '0 / 0 / 0'],
    ['ada1', 'ONLINE', '0 / 0 / 0'],
    ['ada2', 'ONLINE', '0 / 0 / 0'],
  ]);
  const free = await page.locator('[data-free-disks]').getAttribute('data-free-disks');
  expect(free?.split(' ')).toEqual(node.inventory.disks);
  expect(node.inventory.disks).toContain('ada3');
  // a viewer reads why there is nothing to press
  expect(await page.getByRole('button', { name: /^Replace / }).count()).toBe(0);
  await expect(page.locator('[data-why=replace]').textContent()).resolves.toContain('needs an operator or admin token');
  await context.close();
}, 60_000);

test('E7 from a vdev row: asked first naming both disks, followed in the task panel to success, the tree then shows the new disk', async () => {
  const { context, page } = await open(`/node/${agent.nodeId}`, { token: await tokenFor('operator') });
  const pool = page.locator('section[data-pool=tank]');
  await pool.locator('tr[data-vdev=ada1]').getByRole('button', { name: 'Replace ada1' }).click();
  const ask = pool.getByRole('alertdialog');
  await ask.locator('select[name=new]').selectOption('ada3');
  await expect(ask.textContent()).resolves.toContain('Replace ada1 with ada3 in pool tank?');
  // nothing is queued until the operator confirms
  const queued = () => testDb().selectFrom('tasks').select('id').where('kind', '=', 'pool.replace-device').where('node_id', '=', agent.nodeId).execute();
  expect(await queued()).toEqual([]);
  await ask.getByRole('button', { name: 'Replace ada1 with ada3' }).click();
  await pool.locator('.answer', { hasText: 'Replacement queued: follow the resilver in the task panel.' }).waitFor();
  const [task] = await queued();
  expect(task).toBeDefined();
  const row = taskRow(page, task.id);
  await row.waitFor({ timeout: 20_000 });
  await expect(row.textContent()).resolves.toContain('pool.replace-device');
  await page.locator(`li[data-task-id="${task.id}"][data-status=success]`).waitFor({ timeout: 60_000 });
  expect((await waitForTask(task.id, ['success', 'failed'], 5_000)).status).toBe('success');
  // the inventory the agent reports after the resilver, shown without a reload
  await page.evaluate(() => ((globalThis as unknown as { unreloaded: boolean }).unreloaded = true));
  await pool.locator('tr[data-vdev=ada3]').waitFor({ timeout: 30_000 });
  await waitUntil(
    'ada1 out of the tree and free',
    async () =>
      (await pool.locator('tr[data-vdev=ada1]').count()) === 0 &&
      ((await page.locator('[data-free-disks]').getAttribute('data-free-disks')) ?? '').split(' ').includes('ada1'),
    30_000,
    250,
  );
  const api = (await call('GET', `/cluster/nodes/${agent.nodeId}`)).body.data.inventory;
  expect(api.pools[0].vdevs[0].children.map((c: { name: string }) => c.name)).toEqual(['ada3', 'ada2']);
  expect(api.pools[0].scan).toMatchObject({ function: 'resilver', state: 'finished', percentDone: 100 });
  await page.locator('section[data-pool=tank] [data-scan=finished]').waitFor();
  expect(await page.evaluate(() => (globalThis as unknown as { unreloaded?: boolean }).unreloaded)).toBe(true);
  await context.close();
}, 120_000);

test('times show their zone, and UTC on hover', async () => {
  const { context, page } = await open('/', { timezoneId: 'Europe/Berlin' });
  const cell = page.locator(`tr[data-node] time`).first();
  await cell.waitFor();
  const iso = await cell.getAttribute('datetime');
  const shown = new Date(iso!);
  await expect(cell.getAttribute('title')).resolves.toBe(`${shown.toISOString().slice(0, 19).replace('T', ' ')} UTC`);
  // Berlin is CET or CEST; the browser prints the zone as GMT+1 / GMT+2 in some locales
  await expect(cell.textContent()).resolves.toMatch(/(CES?T|GMT\+[12])$/);
  await context.close();
}, 60_000);

test('chart axes never print the same label twice, at every range', async () => {
  const { context, page } = await open('/storage');
  await page.selectOption('label:has-text("Node") select', agent.nodeId);
  for (const range of ['1 hour', '6 hours', '24 hours']) {
    await page.selectOption('label:has-text("Range") select', range);
    // every chart drawn with a line (two samples at least: one sample is one value, one label): telemetry comes in
    // batches, so the ARC's first points may follow the pools' by a post
    await waitUntil(
      `every chart drawn at ${range}`,
      async () => {
        const drawn = await page
          .locator('[data-chart]')
          .evaluateAll((els) => els.map((e) => Number(e.getAttribute('data-points')) >= 2 && !!e.getAttribute('data-y-ticks') && !!e.querySelector('canvas')));
        return drawn.length === 5 && drawn.every(Boolean);
      },
      30_000,
    );
    const ticks = await page.locator('[data-chart]').evaluateAll((els) => els.map((e) => [e.getAttribute('data-chart'), e.getAttribute('data-y-ticks') ?? '']));
    expect(ticks).toHaveLength(5);
    for (const [chart, labels] of ticks) {
      const list = labels!.split('|');
      expect({ range, chart, labels, ok: list.length > 1 && new Set(list).size === list.length }).toEqual({ range, chart, labels, ok: true });
    }
    // the x labels ("14:05") say their zone once, in the axis title
    const xLabels = await page.locator('[data-chart]').evaluateAll((els) => els.map((e) => e.getAttribute('data-x-label')));
    expect(xLabels).toEqual(Array(5).fill('Time (UTC)'));
  }
  await context.close();
}, 90_000);

test('chart time axes name the browser’s zone as the page’s other times do', async () => {
  const { context, page } = await open('/storage', { timezoneId: 'Europe/Berlin' });
  await page.selectOption('label:has-text("Node") select', agent.nodeId);
  await page.locator('[data-chart][data-x-label] canvas').first().waitFor({ timeout: 30_000 });
  const labels = await page.locator('[data-chart]').evaluateAll((els) => els.map((e) => e.getAttribute('data-x-label') ?? ''));
  expect(labels).toHaveLength(5);
  // the zone as a <time> on the same page prints it (CET/CEST, or GMT+1/GMT+2 in some locales)
  const zone = await page.evaluate(() => new Date().toLocaleString(undefined, { timeZoneName: 'short' }).split(' ').pop());
  expect(zone).toMatch(/^(CES?T|GMT\+[12])$/);
  expect(labels).toEqual(Array(5).fill(`Time (${zone})`));
  await context.close();
}, 60_000);

test('at 390 px no page scrolls sideways, and the navigation and Sign out are on screen', async () => {
  for (const path of pages('admin')) {
    const { context, page } = await open(path, { width: 390, height: 844 });
    await settled(page, path);
    const { scrollWidth, innerWidth } = await page.evaluate<{ scrollWidth: number; innerWidth: number }>(
      '({ scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth })',
    );
    expect({ path, scrollWidth: Math.min(scrollWidth, innerWidth) === scrollWidth ? 'fits' : scrollWidth }).toEqual({ path, scrollWidth: 'fits' });
    for (const target of [
      page.getByRole('button', { name: 'Sign out' }),
      ...['Overview', 'Guests', 'Storage', 'Backups', 'Certificates', 'Notifications', 'Audit'].map((n) => page.locator('nav a', { hasText: n })),
    ]) {
      const box = await target.boundingBox();
      expect(box).not.toBeNull();
      expect({ path, right: box!.x + box!.width <= innerWidth, left: box!.x >= 0 }).toEqual({ path, right: true, left: true });
    }
    // a table wider than the phone scrolls inside itself, reachable and named for the keyboard
    const wide = await page
      .locator('main table')
      .evaluateAll((tables) =>
        tables
          .filter((t) => t.scrollWidth > t.clientWidth + 1)
          .map((t) => ({ tabIndex: Number(t.getAttribute('tabindex')), named: Boolean(t.getAttribute('aria-label')) })),
      );
    expect(wide.filter((t) => t.tabIndex !== 0 || !t.named)).toEqual([]);
    if (path === '/certificates') expect(wide.length).toBeGreaterThan(0);
    expect({ path, violations: await axeViolations(page) }).toEqual({ path, violations: [] });
    if (['/', '/certificates', '/storage'].includes(path) || path.startsWith('/node/'))
      await page.screenshot({ path: join(SHOTS, `console-phone-${shotName(path)}.png`) });
    await context.close();
  }
}, 240_000);

test('viewers are told why they cannot act', async () => {
  const viewer = await tokenFor('viewer');
  const { context, page } = await open(`/jail/${jailId}`, { token: viewer });
  await page.locator('[data-fact]').first().waitFor();
  await expect(page.locator('[data-why=viewer]').textContent()).resolves.toContain('needs an operator or admin token');
  const migrate = page.getByRole('form', { name: 'Migrate' });
  await expect(migrate.locator('.why').textContent()).resolves.toBe('Read-only: this needs an operator or admin token.');
  await context.close();
  const operator = await open(`/jail/${jailId}`, { token: await tokenFor('operator') });
  await operator.page.locator('[data-fact]').first().waitFor();
  expect(await operator.page.locator('[data-why], .why').count()).toBe(0);
  await operator.context.close();
}, 60_000);

test.each(ROLES)(
  'every page as %s, light and dark: axe finds nothing serious or critical (nor any WCAG 2.1 AA violation)',
  async (role) => {
    const token = role === 'admin' ? adminToken() : await tokenFor(role);
    for (const scheme of ['light', 'dark'] as const) {
      for (const path of pages(role)) {
        const { context, page } = await open(path, { token, colorScheme: scheme });
        await settled(page, path);
        const violations = await axeViolations(page);
        expect({ role, scheme, path, serious: violations.filter((v) => v.impact === 'serious' || v.impact === 'critical') }).toEqual({
          role,
          scheme,
          path,
          serious: [],
        });
        expect({ role, scheme, path, violations }).toEqual({ role, scheme, path, violations: [] });
        if (role === 'admin' && path.startsWith('/node/')) {
          // tall enough for the whole page above the task panel, which stays at the bottom
          await page.setViewportSize({ width: 1280, height: 1280 });
          await page.screenshot({ path: join(SHOTS, `console-node-${scheme}.png`) });
        }
        await context.close();
      }
    }
  },
  300_000,
);

test('keyboard: the task panel scrolls from the keyboard and focus is visible', async () => {
  const { context, page } = await open(`/node/${agent.nodeId}`);
  await settled(page, `/node/${agent.nodeId}`);
  // the panel's list is what scrolls (bounded height), so it is the part a keyboard must reach
  const panel = page.locator('section.tasks .task-list');
  await panel.focus();
  const style = await panel.evaluate((el) => {
    const s = (globalThis as unknown as { getComputedStyle: (e: unknown) => { outlineStyle: string; outlineWidth: string } }).getComputedStyle(el);
    return { tabIndex: Number(el.getAttribute('tabindex')), outline: s.outlineStyle, width: s.outlineWidth, label: el.getAttribute('aria-label') };
  });
  expect(style).toEqual({ tabIndex: 0, outline: 'solid', width: '3px', label: 'Task list' });
  await context.close();
}, 60_000);

test('no uncaught error in any page', () => {
  expect(pageErrors).toEqual([]);
});
