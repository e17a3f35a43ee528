import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { curl, shellWords } from '../test/curl-command.ts';
import { closedPort } from '../test/push-receiver.ts';
import { defaultSettings } from './settings.ts';
import { startServer, type RunningSdp } from './server.ts';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = mkdtempSync(join(tmpdir(), 'sdp-push-example-'));
let child: ChildProcess | undefined;
let sdp: RunningSdp | undefined;

afterAll(async () => {
  if (child && child.exitCode === null) child.kill('SIGKILL');
  await sdp?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The fenced blocks of a language under the heading `### Worked example` of docs/push.md. */
function blocks(lang: string): string[] {
  const doc = readFileSync(join(root, 'docs/push.md'), 'utf8');
  const section = doc.slice(doc.indexOf('### Worked example'), doc.indexOf('\n## ', doc.indexOf('### Worked example')));
  return [...section.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
}

/** Runs a curl command of the example and reads its answer. */
async function curlAnswer(words: string[]): Promise<{ status: number; text: string }> {
  const r = await curl(words);
  return { status: r.status, text: await r.text() };
}

describe('the worked example of docs/push.md', () => {
  it('runs as written: the receiver gets the ping and one json_meta batch; the curl answers are as shown', async () => {
    const [receiverCode] = blocks('js');
    const [script] = blocks('sh');
    const [printed] = blocks('text');
    expect(receiverCode && script && printed).toBeTruthy();

    const port = await closedPort();
    const closed = await closedPort();
    writeFileSync(join(dir, 'receiver.mjs'), receiverCode!.replace('listen(9000', `listen(${port}`));
    child = spawn(process.execPath, [join(dir, 'receiver.mjs')], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    await new Promise<void>((ready) => child!.stdout!.on('data', (d: Buffer) => ((out += d.toString()), out.includes('listening') && ready())));

    const server = await startServer({ ...defaultSettings(), port: 0, store: 'memory:', clock: 'manual', clockStartMs: Date.parse('2026-03-02T08:00:00Z'), adminToken: 'secret', accessLog: 'off' });
    sdp = server;
    const vars: Record<string, string> = {};
    const lines = script!.trim().split('\n');
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i]!;
      if (line.startsWith('#')) continue;
      const expand = (text: string) => text
        .replaceAll('http://127.0.0.1:8080', server.url)
        .replaceAll('127.0.0.1:9000', `127.0.0.1:${port}`)
        .replaceAll('127.0.0.1:9001', `127.0.0.1:${closed}`)
        .replace(/\$([A-Z]+)/g, (_, name: string) => vars[name] ?? `$${name}`);
      const expanded = expand(line);
      const assign = /^([A-Z]+)=\$\((.*) \| jq -r \.(\w+)\)$/.exec(expanded);
      const answer = await curlAnswer(shellWords(assign ? assign[2]! : expanded));
      if (assign) vars[assign[1]!] = JSON.parse(answer.text)[assign[3]!];
      const shown = /^# → (\d{3})(?: (.*))?$/.exec(expand(lines[i + 1] ?? ''));
      expect(shown, `a "# → status" line after: ${line}`).not.toBeNull();
      expect(answer.status, `${line}\n${answer.text}`).toBe(Number(shown![1]));
      // The body shown after the status is the body that came back, `...` standing for anything.
      if (shown![2]) {
        const pattern = new RegExp(`^${shown![2].replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('\\.\\.\\.', '.*')}$`);
        expect(answer.text).toMatch(pattern);
      }
    }
    expect(out.trim().split('\n')).toEqual(printed!.trim().split('\n'));
  }, 30_000);
});
