/**
 * docs/stream.md's worked example is a test: its ```js stream-example block runs as it is, with plain
 * node, against a fresh server and account, and prints what the page says it prints. So are the curl
 * lines of its command-line section and of README.md's stream lines.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { curl, shellWords } from '../test/curl-command.ts';
import { lines, runStreamCommandLine, shownAs } from '../test/stream-walkthrough.ts';
import { admin, start, stopAll } from '../test/stream-kit.ts';

afterEach(stopAll);

const PAGE = join(import.meta.dirname, '../../../docs/stream.md');
const README = join(import.meta.dirname, '../../../README.md');
const ROOT = join(import.meta.dirname, '../../..');

/** The lines of a ```sh block, each with the comment after it (two spaces, #). */
const shLines = (block: string) => block.trim().split('\n').map((l) => ({ command: l.replace(/\s+#.*$/, '').trim(), note: /\s#\s*(.*)$/.exec(l)?.[1] ?? '' }));

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

  it("README.md's two lines compile a filter with the demo key and open its stream, which answers as the comment shows", async () => {
    const sdp = await start({ clock: 'system', clockStartMs: undefined });
    // The demo account a first start opens, as `npm start` does.
    const key = sdp.demo!.apiKey;
    const block = [...readFileSync(README, 'utf8').matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).find((b) => b.includes('/v1.5/compile'));
    expect(block).toBeDefined();
    const [compile, stream] = shLines(block!);
    const expand = (text: string, hash = 'HASH') => text.replaceAll('http://127.0.0.1:8080', sdp.url).replaceAll('demo:KEY', `demo:${key}`).replaceAll('HASH', hash);
    const compiled = await curl(shellWords(expand(compile!.command)));
    expect(compiled.status).toBe(200);
    const body = await compiled.text();
    const { hash } = JSON.parse(body) as { hash: string };
    expect(body).toMatch(shownAs(expand(compile!.note, hash)));
    const open = await curl(shellWords(expand(stream!.command, hash)));
    expect(open.status).toBe(200);
    const read = lines(open.body!);
    expect(await read.next()).toMatch(shownAs(expand(stream!.note.replace(/, then what matches$/, ''), hash)));
    await read.cancel();
  }, 30_000);

  it('the command-line section runs as printed: the stream in the background prints the subscription, then the ingested match', async () => {
    const sdp = await start({ clock: 'system', clockStartMs: undefined });
    await runStreamCommandLine(ROOT, sdp.url, sdp.demo!.apiKey);
  }, 30_000);
});
