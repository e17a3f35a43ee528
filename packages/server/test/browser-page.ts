import { existsSync } from 'node:fs';
import { chromium, type Browser, type Page } from 'playwright-core';

/**
 * Test support (not built, not shipped): the headless Chromium the console's browser specs drive, from
 * Debian's package (.ci/chromium.sh), started one way for all of them.
 */
const CHROMIUM = '/usr/bin/chromium';
// No sandbox: CI runs as root. The rest keeps the browser from calling anywhere but the page's server.
const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * Whether Chromium is here to run `what`. With CI set its absence fails the file instead: a skipped
 * browser test there would hide a broken .ci/chromium.sh.
 */
export function chromiumHere(what: string): boolean {
  const here = existsSync(CHROMIUM);
  if (!here && process.env.CI) throw new Error(`CI is set but ${CHROMIUM} is missing: run .ci/chromium.sh`);
  if (!here) console.warn(`skipping ${what}: ${CHROMIUM} is not installed (run .ci/chromium.sh)`);
  return here;
}

export interface WatchedPage {
  browser: Browser;
  page: Page;
  /** Uncaught exceptions and console errors of the page (and of pages passed to `watch`). */
  pageErrors: string[];
  /** Every request the page made to anywhere but `origin`: the console must need nothing else. */
  requestsElsewhere: string[];
  /** Records another page's uncaught exceptions in `pageErrors` too. */
  watch(other: Page): void;
}

/** A 1280 x 800 page in a new headless Chromium, recording its errors and the requests that leave `origin`. */
export async function openWatchedPage(origin: string): Promise<WatchedPage> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: FLAGS });
  const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  const pageErrors: string[] = [];
  const requestsElsewhere: string[] = [];
  const watch = (other: Page) => other.on('pageerror', (e) => pageErrors.push(String(e)));
  watch(page);
  page.on('console', (m) => {
    if (m.type() === 'error') pageErrors.push(m.text());
  });
  page.on('request', (r) => {
    if (!r.url().startsWith(origin)) requestsElsewhere.push(r.url());
  });
  return { browser, page, pageErrors, requestsElsewhere, watch };
}
