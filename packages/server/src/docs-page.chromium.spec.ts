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
});
