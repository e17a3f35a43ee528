import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const CHROMIUM = '/usr/bin/chromium';

export const chromiumAvailable = (): boolean => existsSync(CHROMIUM);

const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--hide-scrollbars'];

function run(args: string[]): Promise<{ stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile(CHROMIUM, args, { timeout: 90_000, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`chromium failed: ${error.message}\n${stderr}`));
      else resolve({ stdout, stderr });
    });
  });
}

/**
 * Opens a file in headless Chromium: the DOM after load, the console messages the page logged, and a
 * screenshot of the given size. Each run gets a fresh profile directory, removed afterwards.
 */
export async function openInChromium(file: string, size: { width: number; height: number }): Promise<{ dom: string; console: string[]; png: Uint8Array }> {
  const profile = mkdtempSync(join(tmpdir(), 'sdp-chromium-'));
  try {
    const url = `file://${file}`;
    const dumped = await run([...FLAGS, `--user-data-dir=${join(profile, 'a')}`, '--enable-logging=stderr', '--v=0', '--dump-dom', url]);
    // Page console output reaches stderr as `CONSOLE(line)] "message"` or `Uncaught ...`.
    const consoleLines = dumped.stderr.split('\n').filter((l) => /CONSOLE|Uncaught|console\./.test(l));
    const shot = join(profile, 'shot.png');
    await run([...FLAGS, `--user-data-dir=${join(profile, 'b')}`, `--window-size=${size.width},${size.height}`, `--screenshot=${shot}`, url]);
    return { dom: dumped.stdout, console: consoleLines, png: new Uint8Array(readFileSync(shot)) };
  } finally {
    rmSync(profile, { recursive: true, force: true });
  }
}
