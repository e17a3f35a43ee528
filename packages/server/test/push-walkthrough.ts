/**
 * Test support (not built, not shipped): docs/push.md's worked example, run as printed against a server
 * that is already listening. push-example.e2e.spec.ts runs it on a server of its own; docs-commands.spec.ts
 * runs it in the order a newcomer reads the docs, against the server the page says to start.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect } from 'vitest';
import { curl, shellWords } from './curl-command.ts';
import { closedPort } from './push-receiver.ts';

/** The fenced blocks of a language under the heading `### Worked example` of docs/push.md. */
export function pushExampleBlocks(root: string, lang: string): string[] {
  const doc = readFileSync(join(root, 'docs/push.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Worked example'), doc.indexOf('\n## ', doc.indexOf('### Worked example')));
  return [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

/** The server command the example's prose names: "start the server with `...`". */
export function pushExampleServerCommand(root: string): string {
  const doc = readFileSync(join(root, 'docs/push.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Worked example'));
  const m = /start the server with `([^`]+)`/.exec(section);
  if (!m) throw new Error('docs/push.md: the worked example names no server command ("start the server with `...`")');
  return m[1]!;
}

/**
 * Runs the receiver and every `curl` line of the example against `serverUrl`, checking each status and
 * body shown after `# →` (`...` standing for anything), and the receiver's output against the ```text
 * block.
 */
export async function runPushExample(root: string, serverUrl: string): Promise<void> {
  const [receiverCode] = pushExampleBlocks(root, 'js');
  const [script] = pushExampleBlocks(root, 'sh');
  const [printed] = pushExampleBlocks(root, 'text');
  expect(receiverCode && script && printed).toBeTruthy();

  const dir = mkdtempSync(join(tmpdir(), 'sdp-push-example-'));
  let child: ChildProcess | undefined;
  try {
    const port = await closedPort();
    const closed = await closedPort();
    writeFileSync(join(dir, 'receiver.mjs'), receiverCode!.replace('listen(9000', `listen(${port}`));
    child = spawn(process.execPath, [join(dir, 'receiver.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    await new Promise<void>((ready) => child!.stdout!.on('data', (d: Buffer) => ((out += d.toString()), out.includes('listening') && ready())));

    const vars: Record<string, string> = {};
    const lines = script!.trim().split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.startsWith('#')) continue;
      const expand = (text: string) => text
        .replaceAll('http://127.0.0.1:8080', serverUrl)
        .replaceAll('127.0.0.1:9000', `127.0.0.1:${port}`)
        .replaceAll('127.0.0.1:9001', `127.0.0.1:${closed}`)
        .replace(/\$([A-Z]+)/g, (_, name: string) => vars[name] ?? `$${name}`);
      const expanded = expand(line);
      const assign = /^([A-Z]+)=\$\((.*) \| jq -r \.(\w+)\)$/.exec(expanded);
      const response = await curl(shellWords(assign ? assign[2]! : expanded));
      const answer = { status: response.status, text: await response.text() };
      if (assign) vars[assign[1]!] = JSON.parse(answer.text)[assign[3]!];
      const shown = /^# → (\d{3})(?: (.*))?$/.exec(expand(lines[i + 1] ?? ''));
      expect(shown, `a "# → status" line after: ${line}`).not.toBeNull();
      expect(answer.status, `${line}\n${answer.text}`).toBe(Number(shown![1]));
      if (shown![2]) {
        const pattern = new RegExp(`^${shown![2].replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('\\.\\.\\.', '.*')}$`);
        expect(answer.text).toMatch(pattern);
      }
    }
    expect(out.trim().split('\n')).toEqual(printed!.trim().split('\n'));
  } finally {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  }
}
