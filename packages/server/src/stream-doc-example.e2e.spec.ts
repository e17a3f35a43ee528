/**
 * docs/stream.md's worked example is a test: its ```js stream-example block runs as it is, with plain
 * node, against a fresh server and account, and prints what the page says it prints.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { admin, start, stopAll } from '../test/stream-kit.ts';

afterEach(stopAll);

const PAGE = join(import.meta.dirname, '../../../docs/stream.md');

describe('docs/stream.md', () => {
  it('the worked example compiles, streams, ingests and prints the interaction as it arrives', async () => {
    const block = /```js stream-example\n([\s\S]*?)```/.exec(readFileSync(PAGE, 'utf8'))?.[1];
    expect(block).toBeDefined();
    const sdp = await start({ clock: 'system', clockStartMs: undefined });
    const { api_key: key } = await admin(sdp, 'POST', '/accounts', { username: 'alice' });
    const dir = mkdtempSync(join(tmpdir(), 'sdp-stream-example-'));
    try {
      writeFileSync(join(dir, 'example.mjs'), block!);
      const { stdout } = await promisify(execFile)(process.execPath, [join(dir, 'example.mjs')], { env: { ...process.env, SDP_URL: sdp.url, SDP_USER: 'alice', SDP_KEY: key }, timeout: 20_000 });
      const [subscribed, content] = stdout.trim().split('\n');
      expect(subscribed).toMatch(/^Successfully subscribed to hash [0-9a-f]{32}$/);
      expect(content).toBe('coffee at ten');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 30_000);
});
