// @tier e2e
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { adminToken, apiUrl, call } from '../helpers/api.ts';
import { CHROMIUM, CHROMIUM_ARGS } from '../helpers/chromium.ts';

/**
 * GET /api/docs in a real browser (the system's Chromium, provisioned like sshd): the page renders every
 * operation of the OpenAPI document without a console error, fetches nothing from outside the API's origin,
 * and its "try it" runs E25 against this stack with the token entered on the page.
 * HM_DOCS_SCREENSHOT=<file.png> also saves the top of the page after the call (docs/api-docs.png in the README).
 */

let profile: string;
let context: BrowserContext;
let page: Page;
let origin: string;
const consoleErrors: string[] = [];
const foreign: string[] = [];

beforeAll(async () => {
  origin = new URL(apiUrl()).origin;
  profile = mkdtempSync(join(tmpdir(), 'hm-chromium-'));
  context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  });
  page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (m) => {
    if (m.type() === 'error') consoleErrors.push(m.text());
  });
  page.on('pageerror', (e) => consoleErrors.push(`uncaught: ${e.message}`));
  // every request of the page, whatever its kind (document, script, style, font, fetch); data: URLs are no request
  context.on('request', (r) => {
    const url = new URL(r.url());
    if (url.protocol !== 'data:' && url.origin !== origin) foreign.push(r.url());
  });
}, 60_000);

afterAll(async () => {
  await context?.close();
  rmSync(profile, { recursive: true, force: true });
});

/** `METHOD path` of every operation the OpenAPI document declares. */
async function documentOperations(): Promise<Map<string, string>> {
  const doc = (await call('GET', '/openapi.json')).body.data as { paths: Record<string, Record<string, { operationId: string }>> };
  const ops = new Map<string, string>();
  for (const [path, methods] of Object.entries(doc.paths)) for (const [m, op] of Object.entries(methods)) ops.set(`${m.toUpperCase()} ${path}`, op.operationId);
  return ops;
}

test('the page needs no token, asks for one, and its files are served from the API with a content policy', async () => {
  const res = await fetch(`${apiUrl()}/docs`);
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/html/);
  expect(res.headers.get('content-security-policy')).toContain("connect-src 'self'");
  const script = await fetch(`${apiUrl()}/docs/swagger-ui-bundle.js`);
  expect(script.status).toBe(200);
  expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
  const missing = await fetch(`${apiUrl()}/docs/nothing.js`);
  expect(missing.status).toBe(404);
  expect(((await missing.json()) as { message: string }).message).toBe('route_not_found');
  // the document it renders stays viewer-only
  expect((await call('GET', '/openapi.json', { token: null })).status).toBe(401);

  await page.goto(`${apiUrl()}/docs`, { waitUntil: 'load' });
  await expect(page.locator('#token-state').textContent()).resolves.toMatch(/enter a token/);
  expect(await page.locator('.opblock').count()).toBe(0);
});

test('with a token it lists every operation of the OpenAPI document, with their error responses', async () => {
  const expected = await documentOperations();
  expect(expected.size).toBeGreaterThan(30);
  await page.fill('#token', adminToken());
  await Promise.all([page.waitForEvent('load'), page.click('#token-form button[type=submit]')]);
  await page.locator('.opblock').first().waitFor({ timeout: 60_000 });
  const shown = await page.$$eval('.opblock', (blocks) =>
    blocks.map(
      (b) => `${b.querySelector('.opblock-summary-method')?.textContent?.trim()} ${b.querySelector('.opblock-summary-path')?.getAttribute('data-path')}`,
    ),
  );
  expect(shown.sort()).toEqual([...expected.keys()].sort());

  // an operation's responses name the envelope's error codes (the document's 401/403/500 on every operation)
  const e25 = page.locator(`#operations-default-${expected.get('GET /api/notifications/count')}`);
  await e25.locator('.opblock-summary-control').click();
  const statuses = await e25.locator('.responses-table tr.response').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-code')));
  expect(statuses).toEqual(expect.arrayContaining(['200', '401', '403', '500']));
  await expect(e25.locator('.responses-table').textContent()).resolves.toContain('unauthorized');
  // each example is drawn from its response's schema: an error's is an error envelope, a success's a success
  const example = (code: string) => e25.locator(`.responses-table tr.response[data-code="${code}"]`).textContent();
  await expect(example('401')).resolves.toContain('"status": "error"');
  await expect(example('401')).resolves.not.toContain('"status": "success"');
  await expect(example('200')).resolves.toContain('"status": "success"');
}, 90_000);

test('"try it" of E25 answers 200 in the page, with the token entered', async () => {
  const id = (await documentOperations()).get('GET /api/notifications/count');
  const e25 = page.locator(`#operations-default-${id}`);
  await e25.locator('button.try-out__btn').click();
  await e25.locator('button.execute').click();
  const status = e25.locator('.live-responses-table tr.response .response-col_status').first();
  await status.waitFor({ timeout: 30_000 });
  expect((await status.textContent())?.trim()).toBe('200');
  await expect(e25.locator('.live-responses-table tr.response .response-col_description').first().textContent()).resolves.toContain('"status": "success"');
  if (process.env.HM_DOCS_SCREENSHOT) {
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path: process.env.HM_DOCS_SCREENSHOT });
  }
}, 90_000);

test('no console error and no request outside the API origin, all along', () => {
  expect(consoleErrors).toEqual([]);
  expect(foreign).toEqual([]);
});
