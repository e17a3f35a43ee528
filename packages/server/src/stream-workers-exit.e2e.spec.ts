/**
 * `sdp serve --workers 2`: a worker killed while it holds a stream connection. The primary sees it exit
 * and has a live worker end its connections at once, without waiting for its liveness record to lapse
 * (5 s): the account's place is free again before that.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { DEFAULT_LAPSE_MS } from '@sdp/core/internal';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = mkdtempSync(join(tmpdir(), 'sdp-stream-workers-'));
const TOKEN = 'workers-token';
let primary: ChildProcess | undefined;
afterAll(() => {
  if (primary && primary.exitCode === null) primary.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

const workerPids = (pid: number): number[] =>
  readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number);

/** The process among `pids` holding the TCP socket whose remote end is `peerPort` on this machine (Linux /proc). */
function socketOwner(pids: number[], peerPort: number): number {
  const peer = peerPort.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f[2]?.endsWith(`:${peer}`)) inodes.add(f[9]!);
    }
  }
  for (const pid of pids) {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      const target = (() => {
        try {
          return readlinkSync(`/proc/${pid}/fd/${fd}`);
        } catch {
          return '';
        }
      })();
      const m = /^socket:\[(\d+)\]$/.exec(target);
      if (m && inodes.has(m[1]!)) return pid;
    }
  }
  throw new Error(`no worker holds the socket of port ${peerPort}`);
}

function tryOpen(url: string): Promise<WebSocket | number> {
  return new Promise((done, fail) => {
    const ws = new WebSocket(url);
    ws.once('open', () => done(ws));
    ws.once('unexpected-response', (_req, res) => {
      done(res.statusCode ?? 0);
      res.resume();
    });
    ws.once('error', fail);
  });
}

describe('a worker of --workers killed while it holds a stream connection', () => {
  it('frees the place at once: the primary has another worker end its connections', async () => {
    primary = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/cli.ts', 'serve', '--port', '0', '--workers', '2', '--store', `sqlite:${join(dir, 'sdp.db')}`, '--admin-token', TOKEN, '--access-log', 'off'], {
      cwd: root,
      env: { ...process.env, SDP_PORT: undefined, SDP_STORE: undefined, SDP_WORKERS: undefined },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    const url = await new Promise<string>((ready, reject) => {
      primary!.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out);
        if (m) ready(m[1]!);
      });
      primary!.stderr!.on('data', (d: Buffer) => (out += d.toString()));
      primary!.on('exit', (code) => reject(new Error(`server exited with ${code}: ${out}`)));
    });
    const created = await fetch(`${url}/_admin/accounts`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ username: 'ada', package: { stream_connections: 1 } }),
    });
    const { api_key: key } = (await created.json()) as { api_key: string };
    const stream = `${url.replace(/^http/, 'ws')}/multi?username=ada&api_key=${key}`;
    const held = await tryOpen(stream);
    if (typeof held === 'number') throw new Error(`refused ${held}`);
    let heldClosed = false;
    held.once('close', () => (heldClosed = true));
    expect(await tryOpen(stream)).toBe(429);

    // Which worker holds it is the cluster's choice: the one with the socket whose peer is our client.
    const holder = socketOwner(workerPids(primary.pid!), (held as unknown as { _socket: { localPort: number } })._socket.localPort);
    const killedAt = performance.now();
    process.kill(holder, 'SIGKILL');
    for (let k = 0; k < 100 && !heldClosed; k++) await new Promise((r) => setTimeout(r, 20));
    expect(heldClosed).toBe(true);

    let accepted: WebSocket | undefined;
    while (!accepted) {
      const got = await tryOpen(stream).catch(() => 0);
      if (typeof got !== 'number') accepted = got;
      else {
        // 0: refused at the socket while no worker serves.
        expect([0, 429]).toContain(got);
        await new Promise((r) => setTimeout(r, 100));
      }
    }
    // Well before the record of the killed worker could lapse.
    expect(performance.now() - killedAt).toBeLessThan(DEFAULT_LAPSE_MS - 1_000);
    accepted.close();
  }, 30_000);
});
