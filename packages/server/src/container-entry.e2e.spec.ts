import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const root = join(import.meta.dirname, '../../..');
const entry = join(root, 'packaging/container/entry.sh');
const dir = mkdtempSync(join(tmpdir(), 'sdp-entry-'));
let child: ChildProcess | undefined;

afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = new Promise((resolve) => child!.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Standard output until `listening on`, which `sdp serve` prints once the port answers. */
function startLines(proc: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    let err = '';
    proc.stdout!.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      if (/listening on \S+\n/.test(out)) resolve(out);
    });
    proc.stderr!.on('data', (chunk: Buffer) => void (err += chunk.toString()));
    proc.once('exit', (code) => reject(new Error(`entry.sh exited ${code} before listening:\n${out}\n${err}`)));
  });
}

/** The printed curl line, sent as curl would send it (only its -X, -H, -d and URL forms occur). */
async function runCurlLine(line: string): Promise<Response> {
  const words = [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
  expect(words[0]).toBe('curl');
  let method = 'GET';
  let body: string | undefined;
  const headers = new Headers();
  let url = '';
  for (let i = 1; i < words.length; i++) {
    const w = words[i]!;
    if (w === '-s') continue;
    else if (w === '-X') method = words[++i]!;
    else if (w === '-H') {
      const h = words[++i]!;
      headers.set(h.slice(0, h.indexOf(':')), h.slice(h.indexOf(':') + 1).trim());
    } else if (w === '-d') body = words[++i]!;
    else url = w;
  }
  return fetch(url, { method, headers, ...(body === undefined ? {} : { body }) });
}

describe('packaging/container/entry.sh, run as the image runs it', () => {
  it('serves on every interface with the store, port and admin token from the environment, and prints a working demo curl line', async () => {
    // The image's settings, but a free port and a temporary store, and the checkout's sources in place of dist.
    child = spawn('sh', [entry], {
      cwd: root,
      env: {
        ...process.env,
        NODE_OPTIONS: '--conditions=@sdp/source --import tsx',
        SDP_CLI: join(root, 'packages/server/src/cli.ts'),
        SDP_PORT: '0',
        SDP_STORE: `sqlite:${join(dir, 'sdp.db')}`,
        SDP_ADMIN_TOKEN: 'entry-token',
        SDP_ACCESS_LOG: 'off',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const out = await startLines(child);
    expect(existsSync(join(dir, 'sdp.db'))).toBe(true);
    expect(out).toContain('operator API: on');
    expect(out).toMatch(/demo account created: username \S+, API key \S+/);
    const url = /listening on (\S+)/.exec(out)![1]!;
    // SDP_HOST defaults to 0.0.0.0 in the script; the printed address is one a client on the machine can reach.
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const curl = /^ {2}(curl .*)$/m.exec(out)![1]!;
    expect(curl).toContain(url);
    const answer = await runCurlLine(curl);
    expect(answer.status).toBe(200);
    const journal = await fetch(`${url}/_admin/requests?path=/v1.5/&status=200`, { headers: { authorization: 'Bearer entry-token' } });
    expect(journal.status).toBe(200);
    expect(((await journal.json()) as { requests: unknown[] }).requests).toHaveLength(1);
  }, 60_000);
});
