import { existsSync } from 'node:fs';
import { chromium, type Page } from 'playwright-core';

/**
 * The test harness for the simulator's HTML pages: Debian's Chromium (`.ci/chromium.sh` installs it at
 * this path) driven by playwright-core, which ships no browser of its own. Chromium also decodes the
 * screenshots, so the tests count pixels without a PNG decoder of ours.
 */
export const CHROMIUM = '/usr/bin/chromium';

export const chromiumAvailable = (): boolean => existsSync(CHROMIUM);

const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--hide-scrollbars'];

/** A page opened by `openInChromium`: playwright's page and what it logged as an error or warning. */
export interface OpenedPage {
  page: Page;
  /** Console errors and warnings, and uncaught exceptions, in the order they came. */
  problems: string[];
}

/**
 * Opens a file in headless Chromium with a viewport of the given size, hands the page to `look`, and
 * closes the browser (and its fresh profile) whatever `look` does.
 */
export async function openInChromium<T>(file: string, size: { width: number; height: number }, look: (opened: OpenedPage) => Promise<T>): Promise<T> {
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ARGS });
  try {
    const page = await browser.newPage({ viewport: size });
    const problems: string[] = [];
    page.on('console', (m) => {
      if (m.type() === 'error' || m.type() === 'warning') problems.push(m.text());
    });
    page.on('pageerror', (e) => problems.push(String(e)));
    await page.goto(`file://${file}`);
    return await look({ page, problems });
  } finally {
    await browser.close();
  }
}

/**
 * Pixels in a rectangle of the page whose colour is strongly saturated (a data series, not text, grid or
 * background): the rectangle's screenshot, decoded and counted by Chromium in the page itself.
 */
export async function saturatedPixels(page: Page, rect: { x: number; y: number; width: number; height: number }): Promise<number> {
  const png = await page.screenshot({ clip: rect });
  // Page-side code as a string: this project's type-check has no DOM library.
  return (await page.evaluate(`(async () => {
    const image = await createImageBitmap(await (await fetch('data:image/png;base64,${png.toString('base64')}')).blob());
    const canvas = new OffscreenCanvas(image.width, image.height);
    const context = canvas.getContext('2d');
    context.drawImage(image, 0, 0);
    const { data } = context.getImageData(0, 0, image.width, image.height);
    let n = 0;
    for (let i = 0; i < data.length; i += 4) if (Math.max(data[i], data[i + 1], data[i + 2]) - Math.min(data[i], data[i + 1], data[i + 2]) > 80) n++;
    return n;
  })()`)) as number;
}
