import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromiumHere, openWatchedPage } from '../../test/browser-page.ts';
import { defaultSettings } from '../settings.ts';
import { startServer, type RunningSdp } from '../server.ts';

/**
 * The console as its user sees it: headless Chromium drives the page against a server on a real socket,
 * while the test makes API calls beside it. Screenshots go to reports/console/ (kept by CI); with
 * SDP_DOC_IMAGES=1 they also refresh docs/images/ for docs/console.md.
 */
const ROOT = join(dirname(fileURLToPath(import.meta.url)), '../../../..');
const REPORTS = join(ROOT, 'reports/console');
const DOC_IMAGES = process.env.SDP_DOC_IMAGES === '1' ? join(ROOT, 'docs/images') : undefined;
const T0 = Date.parse('2026-03-02T08:05:37Z');
const TOKEN = 'console-browser-token';

const haveChromium = chromiumHere('the console-in-Chromium tests');

let sdp: RunningSdp;
let browser: Browser;
let page: Page;
let apiKey = '';
let recordingId = '';
let requestsElsewhere: string[] = [];
let pageErrors: string[] = [];
let watch: (other: Page) => void;

async function shot(name: string): Promise<void> {
  await page.screenshot({ path: join(REPORTS, `${name}.png`) });
  if (DOC_IMAGES) await page.screenshot({ path: join(DOC_IMAGES, `console-${name}.png`) });
}
const call = (path: string, form: Record<string, string> = {}) =>
  fetch(`${sdp.url}${path}`, { method: 'POST', headers: { authorization: `console-dev:${apiKey}`, 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
const gauge = (remaining: number) => `tr[data-account="console-dev"] [data-allowance="general"] .figure[data-remaining="${remaining}"]`;
const view = async (name: string) => {
  await page.click(`nav button[data-view="${name}"]`);
};

describe.skipIf(!haveChromium)('the console in Chromium', () => {
  beforeAll(async () => {
    mkdirSync(REPORTS, { recursive: true });
    if (DOC_IMAGES) mkdirSync(DOC_IMAGES, { recursive: true });
    sdp = await startServer({ ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: T0, adminToken: TOKEN, accessLog: 'off' });
    ({ browser, page, pageErrors, requestsElsewhere, watch } = await openWatchedPage(sdp.url));
  });
  afterAll(async () => {
    await browser?.close();
    await sdp?.close();
  });

  it('asks for the token and opens with it, by keyboard', async () => {
    await page.goto(`${sdp.url}/_console`);
    await page.waitForSelector('input[name="token"]');
    await shot('token');
    await page.keyboard.type('wrong-token');
    await page.keyboard.press('Enter');
    await page.waitForSelector('text=not this server');
    await page.fill('input[name="token"]', TOKEN);
    await page.keyboard.press('Enter');
    await page.waitForSelector('#accounts-h');
    expect(await page.evaluate('sessionStorage.getItem("sdp-console-token")')).toBe(TOKEN);
    expect(await page.evaluate('localStorage.length')).toBe(0);
  });

  it('creates an account and watches its gauge fall by the cost of each call', async () => {
    await page.fill('input[name="username"]', 'console-dev');
    await page.fill('input[name="credits_per_hour"]', '200');
    await page.click('text=Create account');
    apiKey = (await page.textContent('output.opened code'))!;
    expect(apiKey).toMatch(/^[0-9a-f]{32}$/);
    await page.waitForSelector(gauge(200));

    for (let i = 0; i < 3; i++) expect((await call('/v1.5/validate', { csdl: 'fb.content contains "tea"' })).status).toBe(200);
    await page.waitForSelector(gauge(185));
    expect(await page.textContent('tr[data-account="console-dev"] [data-allowance="general"] .recent')).toBe('−5 −5 −5');
    expect(await page.textContent('tr[data-account="console-dev"] [data-allowance="general"] .reset')).toBe('resets in 59:23');
    await shot('accounts');
  });

  it('advances the manual clock past the reset and watches the allowance refill', async () => {
    await view('clock');
    await page.click('text=Advance to next reset');
    await page.waitForSelector('.due >> text=console-dev: general allowance refilled to 200');
    expect(await page.textContent('.now time')).toBe('2026-03-02T09:05:00Z');
    await page.keyboard.press('Alt+A');
    await page.waitForSelector(gauge(200));
  });

  it('changes the package, denies and allows the account', async () => {
    const row = 'tr[data-account="console-dev"]';
    await page.click(`${row} >> text=Change package`);
    await page.fill(`${row} input[name="credits_per_hour"]`, '300');
    await page.click(`${row} >> text=Save package`);
    await page.waitForSelector(gauge(300));
    await page.click(`${row} >> text=Deny`);
    await page.waitForSelector(`${row} .badge.bad >> text=denied`);
    expect((await call('/v1.5/validate', { csdl: 'fb.content contains "tea"' })).status).toBe(403);
    await page.click(`${row} >> text=Allow`);
    await page.waitForSelector(`${row} .badge.good >> text=allowed`);
  });

  it("shows an account's resources with the calls that moved them", async () => {
    const compiled = (await (await call('/v1.5/insight/facebook/compile', { csdl: 'fb.content contains "coffee"' })).json()) as { hash: string };
    const started = await call('/v1.5/insight/facebook/start', { hash: compiled.hash, name: 'coffee talk' });
    expect(started.status).toBe(200);
    recordingId = ((await started.json()) as { id: string }).id;
    await page.click('tr[data-account="console-dev"] th button');
    await page.waitForSelector('#resources-h');
    const row = '.kind[data-kind="recordings"] tr[data-resource]';
    await page.waitForSelector(`${row} >> text=coffee talk`);
    expect(await page.textContent(`${row} .badge`)).toBe('running');
    await page.click(`${row} summary`);
    expect(await page.textContent(`${row} ol.transitions`)).toContain('RecordingStarted → running by insight.start (cost 25');
    await shot('resources');
  });

  it('shows the task queue, and the tasks a clock advance finished', async () => {
    const task = {
      subscription_id: recordingId,
      name: 'ages',
      type: 'analysis',
      parameters: { parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.age', threshold: 5 } } },
    };
    for (let i = 0; i < 2; i++) {
      const r = await fetch(`${sdp.url}/v1.5/insight/facebook/task`, { method: 'POST', headers: { authorization: `console-dev:${apiKey}`, 'content-type': 'application/json' }, body: JSON.stringify(task) });
      expect(r.status).toBe(202);
    }
    await view('accounts');
    await page.waitForSelector('tr[data-account="console-dev"] [data-slot="0"] >> text=2 queued');
    await view('clock');
    await page.click('text=+1 hour');
    await page.waitForSelector('.due h3 >> text=Moved one hour');
    expect(await page.locator('.due li', { hasText: 'console-dev: a task on slot 0 finished' }).count()).toBe(2);
    await shot('clock');
    await page.fill('input[name="to"]', '2026-03-02T10:30:00Z');
    await page.keyboard.press('Enter');
    await page.waitForSelector('.due h3 >> text=Moved to 2026-03-02T10:30:00Z');
    expect(await page.textContent('.now time')).toBe('2026-03-02T10:30:00Z');
    await view('accounts');
    await page.waitForSelector('tr[data-account="console-dev"] [data-slot="0"] >> text=0 queued');
  });

  it('adds a 503 fault: the next call fails and the rule counts down', async () => {
    await view('faults');
    await page.waitForSelector('#faults-h');
    await page.selectOption('select[name="status"]', '503');
    await page.fill('form.create input[name="username"]', 'console-dev');
    await page.fill('input[name="count"]', '2');
    await page.click('text=Add rule');
    await page.waitForSelector('tr[data-fault] td.remaining >> text=2');
    expect((await call('/v1.5/validate', { csdl: 'fb.content contains "tea"' })).status).toBe(503);
    await page.waitForSelector('tr[data-fault] td.remaining >> text=1');
    await shot('faults');
    await page.click('tr[data-fault] >> text=Remove');
    await page.waitForSelector('text=no rules');
  });

  it('lists an open stream connection with its account, transport and hashes', async () => {
    const hash = ((await (await call('/v1.5/compile', { csdl: 'fb.content contains "stream"' })).json()) as { hash: string }).hash;
    const stream = await fetch(`${sdp.url}/${hash}`, { headers: { authorization: `console-dev:${apiKey}` } });
    expect(stream.status).toBe(200);
    await page.keyboard.press('Alt+S');
    await page.waitForSelector('#streams-h');
    await page.waitForSelector('table.streams td >> text=console-dev');
    expect(await page.textContent('table.streams tbody tr')).toContain('http');
    await stream.body?.cancel();
    await page.waitForSelector('text=no stream connection is open');
  });

  it("filters the event log to one account and finds the call's CreditsCharged in its write", async () => {
    await page.keyboard.press('Alt+E');
    await page.waitForSelector('#log-h');
    await page.selectOption('select[name="account"]', 'console-dev');
    await page.waitForSelector('li.write[data-account="console-dev"] >> text=insight.start');
    // Following live: a call made while the page is open arrives at the top.
    const listed = await fetch(`${sdp.url}/v1.5/insight/facebook/task/analysis`, { headers: { authorization: `console-dev:${apiKey}` } });
    expect(listed.status).toBe(200);
    const newest = page.locator('li.write').first();
    await page.waitForSelector('li.write:first-child .call >> text=call tasks.list charged 5');
    // The call also recorded the two tasks the clock had finished: one write, the charge first.
    await page.waitForSelector('li.write:first-child .atomic >> text=one atomic write · 3 events');
    expect(await newest.locator('li.event').evaluateAll((es) => es.map((e) => e.getAttribute('data-type')))).toEqual(['CreditsCharged', 'TaskCompleted', 'TaskCompleted']);
    expect(await page.locator('li.write').evaluateAll((ws) => ws.every((w) => w.getAttribute('data-account') === 'console-dev'))).toBe(true);
    await newest.locator('li.event[data-type="CreditsCharged"] summary').click();
    expect(JSON.parse((await newest.locator('li.event[data-type="CreditsCharged"] pre').textContent())!)).toMatchObject({ endpoint: 'tasks.list', lines: [{ key: 'general', cost: 5 }] });
    // The start's charge and the recording it started are one write.
    const start = page.locator('li.write', { has: page.locator('.call', { hasText: 'call insight.start ' }) });
    expect(await start.locator('.atomic').textContent()).toBe('one atomic write · 2 events');
    expect(await start.locator('li.event').evaluateAll((es) => es.map((e) => e.getAttribute('data-type')))).toEqual(['CreditsCharged', 'RecordingStarted']);
    await page.selectOption('select[name="type"]', 'RecordingStarted');
    expect(await page.locator('li.event').count()).toBe(1);
    await page.selectOption('select[name="type"]', '');
    await page.fill('input[name="stream"]', 'recordings:');
    expect(await page.locator('li.event').evaluateAll((es) => es.map((e) => e.getAttribute('data-type')))).toEqual(['RecordingStarted']);
    await page.fill('input[name="stream"]', '');
    await page.waitForSelector('li.write:first-child li.event[data-type="CreditsCharged"] pre');
    await shot('events');
  });

  it("opens from the link sdp serve prints (the token leaves the address for the tab's storage); an account's page has its own address", async () => {
    // A new tab of its own: nothing in its storage until the link brings the token.
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const linked = await context.newPage();
    watch(linked);
    try {
      await linked.goto(`${sdp.url}/_console/#token=${encodeURIComponent(TOKEN)}`);
      await linked.waitForSelector('tr[data-account="console-dev"]');
      expect(linked.url()).toBe(`${sdp.url}/_console/#accounts`);
      expect(await linked.evaluate('sessionStorage.getItem("sdp-console-token")')).toBe(TOKEN);
      await linked.click('tr[data-account="console-dev"] th button');
      await linked.waitForFunction('location.hash === "#resources/console-dev"');
      await linked.goBack();
      await linked.waitForSelector('nav button[data-view="accounts"].current');
      // A pasted or bookmarked address of an account's page opens that page.
      await linked.evaluate('location.hash = "#events"');
      await linked.waitForSelector('nav button[data-view="events"].current');
      await linked.evaluate('location.hash = "#resources/console-dev"');
      await linked.waitForSelector('nav button[data-view="resources"].current');
      expect(await linked.inputValue('section[aria-labelledby="resources-h"] select')).toBe('console-dev');
    } finally {
      await context.close();
    }
  });

  it('sent no request anywhere but this server, and logged no error', () => {
    expect(requestsElsewhere).toEqual([]);
    expect(pageErrors.filter((e) => !/status of 401/.test(e))).toEqual([]);
  });
});
