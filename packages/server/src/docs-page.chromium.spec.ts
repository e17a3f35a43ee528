import { existsSync } from 'node:fs';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultSettings } from './settings.ts';
import { startServer, type RunningSdp } from './server.ts';

const CHROMIUM = '/usr/bin/chromium';
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

let sdp: RunningSdp;
beforeAll(async () => {
  sdp = await startServer({ ...defaultSettings(), port: 0, store: 'memory:', accessLog: 'off' });
});
afterAll(() => sdp.close());

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('GET /docs in headless Chromium', () => {
  it('renders the reference of every endpoint group with no console error and no request beyond the server', async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    try {
      const page = await browser.newPage();
      const problems: string[] = [];
      const elsewhere: string[] = [];
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(m.text());
      });
      page.on('pageerror', (e) => problems.push(e.message));
      await page.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(sdp.url) || url.startsWith('data:') || url.startsWith('blob:')) return route.continue();
        elsewhere.push(url);
        return route.abort();
      });
      await page.goto(`${sdp.url}/docs`, { waitUntil: 'networkidle' });
      await page.getByText('Social-data platform API (1.5)').first().waitFor({ timeout: 20_000 });
      // Every tag of the document is a section of the page.
      for (const group of ['core', 'push', 'historics', 'insight']) await expect(page.getByText(group, { exact: true }).first().isVisible()).resolves.toBe(true);
      await page.screenshot({ path: `${process.env.SDP_DOCS_SCREENSHOT ?? '/dev/null'}` }).catch(() => {});
      expect(elsewhere).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 60_000);

  it('shows an operation with its parameters, its request body schema (a named shape, nested) and its answer schema', async () => {
    const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
    try {
      const page = await browser.newPage();
      await page.goto(`${sdp.url}/docs#operation/push.create.post`, { waitUntil: 'networkidle' });
      await page.getByText('Social-data platform API (1.5)').first().waitFor({ timeout: 20_000 });
      const op = page.locator('[id="operation/push.create.post"]');
      await op.waitFor({ timeout: 20_000 });
      const text = (await op.innerText()).replace(/\s+/g, ' ');
      // The body's parameters, each with its type and rule, from the contract.
      expect(text).toMatch(/Request Body schema/i);
      for (const name of ['name', 'output_type', 'output_params', 'historics_id', 'initial_status']) expect(text).toContain(name);
      expect(text).toMatch(/Enum: "active" "paused" "waiting_for_start"/);
      // The answer's schema (the PushSubscription shape, referred to) and its example.
      expect(text).toMatch(/Response samples/i);
      for (const field of ['hash_type', 'last_request', 'lost_data']) expect(text).toContain(field);
      // A query operation lists its query parameters.
      const get = page.locator('[id="operation/push.get.get"]');
      const getText = (await get.innerText()).replace(/\s+/g, ' ');
      expect(getText).toMatch(/query Parameters/i);
      for (const name of ['include_finished', 'order_dir', 'per_page']) expect(getText).toContain(name);
      // The nested analysis request of a task: its analysis types, from the AnalysisSpec shape.
      const taskOp = page.locator('[id="operation/tasks.create.post"]');
      await taskOp.scrollIntoViewIfNeeded();
      // Its `parameters` open onto the analysis request, whose own `parameters` open onto the analysis.
      await taskOp.locator('button[aria-label="expand parameters"]').first().click();
      const request = (await taskOp.innerText()).replace(/\s+/g, ' ');
      for (const name of ['subscription_id', 'filter', 'start', 'end']) expect(request).toContain(name);
      await taskOp.locator('button[aria-label="expand parameters"]').nth(1).click();
      const analysis = (await taskOp.innerText()).replace(/\s+/g, ' ');
      expect(analysis).toContain('analysis_type');
      expect(analysis).toMatch(/freqDist/);
      await page.screenshot({ path: `${process.env.SDP_DOCS_OPERATION_SCREENSHOT ?? '/dev/null'}`, fullPage: false }).catch(() => {});
    } finally {
      await browser.close();
    }
  }, 90_000);
});
