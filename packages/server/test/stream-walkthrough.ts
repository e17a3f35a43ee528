/**
 * Test support (not built, not shipped): the command-line section of docs/stream.md, run as printed
 * against a server that is already listening, with the demo key in place of KEY.
 * stream-doc-example.e2e.spec.ts runs it on a server of its own; docs-commands.spec.ts runs it in the
 * order a newcomer reads the docs, against `npm start` on the state the pages before it left.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { curl, shellWords } from './curl-command.ts';

/** A stream's body, a line at a time. */
export function lines(body: ReadableStream<Uint8Array>): { next: () => Promise<string>; cancel: () => Promise<void> } {
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
export const shownAs = (shown: string) => new RegExp(`^${shown.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('\\.\\.\\.', '.*')}$`);

/** The ```sh block of docs/stream.md's section "From the command line". */
export function streamCommandLineBlock(root: string): string {
  const page = readFileSync(join(root, 'docs/stream.md'), 'utf8');
  const at = page.indexOf('## From the command line');
  const section = page.slice(at, page.indexOf('\n## ', at));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (at < 0 || !block) throw new Error('docs/stream.md has no ```sh block under "## From the command line"');
  return block;
}

/**
 * Runs the block: `NAME=$(curl ... | jq -r .field)` keeps a field, a line ending in ` &` opens the stream,
 * `# → ...` is what the stream prints next, `kill %1` closes it; every other curl must answer 2xx.
 */
export async function runStreamCommandLine(root: string, serverUrl: string, demoKey: string): Promise<void> {
  const vars: Record<string, string> = {};
  const expand = (text: string) => text.replaceAll('http://127.0.0.1:8080', serverUrl).replaceAll('demo:KEY', `demo:${demoKey}`).replace(/\$([A-Z]+)/g, (_, name: string) => vars[name] ?? `$${name}`);
  let stream: ReturnType<typeof lines> | undefined;
  let shown = 0;
  try {
    for (const raw of streamCommandLineBlock(root).trim().split('\n')) {
      const line = expand(raw);
      const out = /^# → (.*)$/.exec(line);
      if (out) {
        expect(await stream!.next(), raw).toMatch(shownAs(out[1]!));
        shown++;
        continue;
      }
      if (line === 'kill %1') {
        await stream!.cancel();
        stream = undefined;
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
  } finally {
    await stream?.cancel();
  }
  expect(shown).toBe(2);
}
