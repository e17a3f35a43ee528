import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumHere, openWatchedPage } from '../../test/browser-page.ts';
import { defaultSettings } from '../settings.ts';
import { startServer, type RunningSdp } from '../server.ts';

/**
 * The console's request journal view in headless Chromium, against a server on a real socket while the
 * test makes API calls beside it. Its screenshot goes to reports/console/, and with SDP_DOC_IMAGES=1 to
 * docs/images/ for docs/console.md.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
const REPORTS = join(ROOT, 'reports/console');
const DOC_IMAGES = process.env.SDP_DOC_IMAGES === '1' ? join(ROOT, 'docs/images') : undefined;
const TOKEN = 'journal-browser-token';

const haveChromium = chromiumHere('the request journal in Chromium');

let sdp: RunningSdp;
let browser: Browser;
let page: Page;
let apiKey = '';
let pageErrors: string[] = [];
let requestsElsewhere: string[] = [];

const call = (method: string, path: string, form?: Record<string, string>) =>
  fetch(`${sdp.url}${path}`, { method, headers: { authorization: `ada:${apiKey}`, 'content-type': 'application/x-www-form-urlencoded' }, ...(form ? { body: new URLSearchParams(form) } : {}) });
// A function, not a string: the page's Content-Security-Policy refuses a string to evaluate.
const hashIs = (hash: string) => page.waitForFunction((h) => (globalThis as unknown as { location: { hash: string } }).location.hash === h, hash);
const rows = (selector = '') => page.locator(`section[aria-labelledby="requests-h"] tbody.request${selector}`);

describe.skipIf(!haveChromium)('the request journal in the console, in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(REPORTS, { recursive: true });
    sdp = await startServer({ ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: Date.parse('2026-03-02T08:05:37Z'), adminToken: TOKEN, accessLog: 'off' });
    const opened = await fetch(`${sdp.url}/_admin/accounts`, { method: 'POST', headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' }, body: JSON.stringify({ username: 'ada' }) });
    apiKey = ((await opened.json()) as { api_key: string }).api_key;
    // The opening of the account is in the journal (a change the operator made); the test starts without it.
    await fetch(`${sdp.url}/_admin/requests`, { method: 'DELETE', headers: { authorization: `Bearer ${TOKEN}` } });
    ({ browser, page, pageErrors, requestsElsewhere } = await openWatchedPage(sdp.url));
  });
  afterAll(async () => {
    await browser?.close();
    await sdp?.close();
  });

  it('lists the calls newest first with their charge, and opens one to its parameters and the events it wrote', async () => {
    expect((await call('POST', '/v1.5/validate', { csdl: 'fb.content contains "tea"' })).status).toBe(200);
    expect((await call('POST', '/v1.5/validate', { csdl: 'fb.content contains' })).status).toBe(400);
    const usage = await call('GET', '/v1.5/usage?period=hour');
    expect(usage.status).toBe(200);
    await page.goto(`${sdp.url}/_console/#token=${encodeURIComponent(TOKEN)}&requests`);
    await page.waitForSelector('#requests-h');
    expect(page.url()).toBe(`${sdp.url}/_console/#requests`);
    await rows().first().waitFor();
    // The console's own reads of the operator API are not in the list: only the three calls are.
    expect(await rows().evaluateAll((els) => els.map((el) => `${el.getAttribute('data-path')} ${el.getAttribute('data-status')}`))).toEqual(['/v1.5/usage 200', '/v1.5/validate 400', '/v1.5/validate 200']);
    const newest = rows().first();
    expect(await newest.locator('td.cost').textContent()).toBe(usage.headers.get('x-ratelimit-cost'));
    expect(await newest.locator('td.remaining').textContent()).toBe(usage.headers.get('x-ratelimit-remaining'));
    await rows('[data-status="200"]').last().locator('button').click();
    const opened = rows('[data-status="200"]').last();
    expect(JSON.parse((await opened.locator('pre').textContent())!)).toEqual({ csdl: 'fb.content contains "tea"' });
    expect(await opened.locator('td.positions').textContent()).toMatch(/^#\d+$/);
    if (DOC_IMAGES) {
      mkdirSync(DOC_IMAGES, { recursive: true });
      await page.screenshot({ path: join(DOC_IMAGES, 'console-requests.png') });
    }
    await page.screenshot({ path: join(REPORTS, 'requests.png') });
  });

  it('narrows by status and username, with the filters in the address, and a pasted address opens narrowed', async () => {
    const historyLength = () => page.evaluate(() => (globalThis as unknown as { history: { length: number } }).history.length);
    const entries = await historyLength();
    await page.fill('input[name="status"]', '4x');
    await page.waitForSelector('text=status: a code (404) or a class (4xx)');
    await page.fill('input[name="status"]', '4xx');
    await hashIs('#requests?status=4xx');
    // Typed filters replace the view's history entry: Back leaves the view, not a keystroke.
    expect(await historyLength()).toBe(entries);
    await rows('[data-status="200"]').first().waitFor({ state: 'detached' });
    expect(await rows().count()).toBe(1);
    await page.evaluate('location.hash = "#requests?username=nobody"');
    await page.waitForSelector('text=no request matches');
    expect(await page.inputValue('input[name="username"]')).toBe('nobody');
    expect(await page.inputValue('input[name="status"]')).toBe('');
    await page.goBack();
    await hashIs('#requests?status=4xx');
    await rows().first().waitFor();
    expect(await page.inputValue('input[name="status"]')).toBe('4xx');
  });

  it('follows new calls live, and empties the journal on request', async () => {
    await page.fill('input[name="status"]', '');
    await hashIs('#requests');
    expect((await call('POST', '/v1.5/compile', { csdl: 'fb.content contains "coffee"' })).status).toBe(200);
    await page.waitForSelector('tbody.request[data-path="/v1.5/compile"]');
    await page.click('text=Clear the journal');
    await page.waitForSelector('text=no request matches');
    expect(await rows().count()).toBe(0);
  });

  it('sent no request anywhere but this server, and logged no error', () => {
    expect(requestsElsewhere).toEqual([]);
    expect(pageErrors).toEqual([]);
  });
});
