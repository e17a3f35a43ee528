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
import { admin, start, stopAll } from '../test/stream-kit.ts';

afterEach(stopAll);

const PAGE = join(import.meta.dirname, '../../../docs/stream.md');
const README = join(import.meta.dirname, '../../../README.md');

/** A stream's body, a line at a time. */
function lines(body: ReadableStream<Uint8Array>): { next: () => Promise<string>; cancel: () => Promise<void> } {
  const reader = body.pipeThrough(new TextDecoderStream()).getReader();
  let pending = '';
  return {
    async next() {
      while (!pending.includes('\n')) {
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended: ${pending}`);
        pending += value;
      }
      const line = pending.slice(0, pending.indexOf('\n'));
      pending = pending.slice(line.length + 1);
      return line;
    },
    cancel: () => reader.cancel(),
  };
}

/** A shown line as a pattern: `...` stands for anything. */
const shownAs = (shown: string) => new RegExp(`^${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('\\.\\.\\.', '.*')}$`);

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
    const key = sdp.demo!.apiKey;
    const page = readFileSync(PAGE, 'utf8');
    const section = page.slice(page.indexOf('## From the command line'), page.indexOf('\n## ', page.indexOf('## From the command line')));
    const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBeDefined();
    const vars: Record<string, string> = {};
    const expand = (text: string) => text.replaceAll('http://127.0.0.1:8080', sdp.url).replaceAll('demo:KEY', `demo:${key}`).replace(/\$([A-Z]+)/g, (_, name: string) => vars[name] ?? `$${name}`);
    let stream: ReturnType<typeof lines> | undefined;
    let shown = 0;
    for (const raw of block!.trim().split('\n')) {
      const line = expand(raw);
      // A shown line is what the background stream prints next.
      const out = /^# → (.*)$/.exec(line);
      if (out) {
        expect(await stream!.next(), raw).toMatch(shownAs(out[1]!));
        shown++;
        continue;
      }
      if (line === 'kill %1') {
        await stream!.cancel();
        continue;
      }
      if (line.endsWith(' &')) {
        const open = await curl(shellWords(line.slice(0, -2)));
        expect(open.status, line).toBe(200);
        stream = lines(open.body!);
        continue;
      }
      const assign = /^([A-Z]+)=\$\((.*) \| jq -r \.(\w+)\)$/.exec(line);
      const answer = await curl(shellWords(assign ? assign[2]! : line));
      const text = await answer.text();
      expect(answer.status, `${raw}\n${text}`).toBeLessThan(300);
      if (assign) vars[assign[1]!] = JSON.parse(text)[assign[3]!];
    }
    expect(shown).toBe(2);
  }, 30_000);
});
