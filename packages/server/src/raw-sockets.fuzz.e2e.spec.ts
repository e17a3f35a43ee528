/**
 * Raw TCP against the server (issue 35): request heads of every shape — stream paths and API paths,
 * upgrades to websocket, h2c or junk, keys and versions right, wrong or missing, credentials none, wrong
 * or valid — written whole or cut short, then reset, ended, or left open and unread. Whatever a client
 * does to its own socket must not stop the server, hold a descriptor after the client is gone, hold a
 * place of the account's `stream_connections`, or charge for a handshake that was refused. One server
 * per configuration: the memory store (with `--stream-port`), a SQLite file, and `--workers 2` on SQLite.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, mkdtempSync, rmSync } from 'node:fs';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { account, pause, settings, start, stopAll, TOKEN } from '../test/stream-kit.ts';
import { startServer, type RunningSdp } from './server.ts';
import { listeningUrl } from '../test/listening-url.ts';

/** Cases per configuration (`SDP_FUZZ_RUNS`), in batches that run at once. */
const RUNS = Number(process.env.SDP_FUZZ_RUNS ?? 150);
const PER_BATCH = 10;
/** A failure found before, run again: `SDP_FUZZ_SEED` and `SDP_FUZZ_PATH` as fast-check printed them. */
const REPLAY = process.env.SDP_FUZZ_SEED ? { seed: Number(process.env.SDP_FUZZ_SEED), ...(process.env.SDP_FUZZ_PATH ? { path: process.env.SDP_FUZZ_PATH } : {}) } : {};
const PLACES = 3;

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const dir = mkdtempSync(join(tmpdir(), 'sdp-raw-sockets-'));
const children: ChildProcess[] = [];
afterAll(async () => {
  await stopAll();
  for (const c of children) if (c.exitCode === null) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});

interface Target {
  url: string;
  ports: number[];
  /** What the server's processes wrote: a worker's exit shows here. */
  output: () => string;
}

async function inProcess(store: string, streamPort: boolean): Promise<Target> {
  const sdp = await start({ store, ...(streamPort ? { streamPort: 0 } : {}) });
  const ports = [sdp.port, ...(sdp.streamUrl ? [Number(new URL(sdp.streamUrl).port)] : [])];
  return { url: sdp.url, ports, output: () => '' };
}

async function workers(file: string): Promise<Target> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'packages/server/src/cli.ts', 'serve', '--port', '0', '--workers', '2', '--store', `sqlite:${join(dir, file)}`, '--admin-token', TOKEN, '--access-log', 'off'], {
    cwd: root,
    env: { ...process.env, SDP_PORT: undefined, SDP_STORE: undefined, SDP_WORKERS: undefined },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  children.push(child);
  const { url, output } = await listeningUrl(child);
  return { url, ports: [Number(new URL(url).port)], output };
}

// ---- what a case sends ----

interface Case {
  port: number;
  /** The head, its credentials and hash as placeholders (`{USER}`, `{KEY}`, `{HASH}`): each batch has an account of its own. */
  head: string;
  trailing: Buffer;
  /** Bytes written before the cut (all when at least the length). */
  cut: number;
  end: 'rst' | 'fin' | 'open';
  startMs: number;
  cutMs: number;
}

interface Keys {
  username: string;
  key: string;
  hash: string;
}

const UNKNOWN_HASH = 'e'.repeat(32);

const PLACEHOLDERS: Keys = { username: '{USER}', key: '{KEY}', hash: '{HASH}' };

/** The bytes of a case for the batch's account. */
const bytesOf = (c: Case, keys: Keys): Buffer =>
  Buffer.concat([Buffer.from(c.head.replaceAll('{USER}', keys.username).replaceAll('{KEY}', keys.key).replaceAll('{HASH}', keys.hash), 'latin1'), c.trailing]);

function caseArb(ports: number[]): fc.Arbitrary<Case> {
  const keys = PLACEHOLDERS;
  // Weighted toward what reaches the stream's decisions (a GET of a stream path with valid credentials).
  const method = fc.oneof({ arbitrary: fc.constant('GET'), weight: 6 }, { arbitrary: fc.constantFrom('POST', 'PUT', 'HEAD', 'OPTIONS', 'CONNECT', 'PRI', 'BREW', 'get', 'G\u00c9T', 'X'.repeat(40)), weight: 4 });
  const path = fc.oneof(
    { arbitrary: fc.constantFrom('/', '/multi', `/multi?hashes=${keys.hash},${UNKNOWN_HASH}`, `/${keys.hash}`, `/${keys.hash}`, `/${UNKNOWN_HASH}`), weight: 6 },
    { arbitrary: fc.constantFrom('/v1.5/validate', '/_admin/streams', '*', 'http://x/multi', '/%00', '//', '//x/multi', `/${keys.hash}/x`), weight: 3 },
    { arbitrary: fc.string({ maxLength: 30 }).map((s) => '/' + s.replace(/[\r\n ]/g, '')), weight: 1 },
  );
  const credentials = fc.oneof({ arbitrary: fc.constant('valid'), weight: 3 }, { arbitrary: fc.constantFrom('none', 'wrong'), weight: 2 });
  const where = fc.constantFrom('query', 'authorization', 'auth');
  const connection = fc.constantFrom(undefined, 'Upgrade', 'keep-alive, Upgrade', 'upgrade', 'close', 'keep-alive');
  const upgrade = fc.constantFrom(undefined, 'websocket', 'WebSocket', 'h2c', 'junk/1', '');
  const wsKey = fc.constantFrom(undefined, 'dGhlIHNhbXBsZSBub25jZQ==', 'short', 'dGhlIHNhbXBsZSBub25jZQ', '!!!!!!!!!!!!!!!!!!!!!!==');
  const version = fc.constantFrom(undefined, '13', '8', '12', 'x');
  const framing = fc.constantFrom('none', 'none', 'none', 'chunked', 'length', 'both');
  const trailing = fc.oneof(fc.constant(Buffer.alloc(0)), fc.uint8Array({ maxLength: 80 }).map((b) => Buffer.from(b)), fc.constantFrom(Buffer.from('5\r\nhello\r\n0\r\n\r\n'), Buffer.from('{"csdl":"fb.content contains \\"x\\""}'), Buffer.from('\x81\x85\x00\x00\x00\x00hello')));
  const head = fc.record({ method, path, credentials, where, connection, upgrade, wsKey, version, framing, trailing, host: fc.boolean(), http10: fc.boolean(), handshake: fc.boolean() });
  return fc
    .record({
      head,
      port: fc.constantFrom(...ports),
      cutAll: fc.boolean(),
      cutAt: fc.nat(400),
      end: fc.constantFrom('rst', 'fin', 'open'),
      startMs: fc.nat(40),
      cutMs: fc.constantFrom(0, 0, 5, 30, 150),
    })
    .map(({ head: h, port, cutAll, cutAt, end, startMs, cutMs }) => {
      let path = h.path;
      const lines: string[] = [];
      const secret = h.credentials === 'valid' ? keys.key : 'f0f0f0f0f0f0f0f0f0f0';
      if (h.credentials !== 'none' && h.where === 'query') path += `${path.includes('?') ? '&' : '?'}username=${keys.username}&api_key=${secret}`;
      if (h.credentials !== 'none' && h.where === 'authorization') lines.push(`Authorization: ${keys.username}:${secret}`);
      if (h.credentials !== 'none' && h.where === 'auth') lines.push(`Auth: ${keys.username}:${secret}`);
      if (h.host) lines.push('Host: 127.0.0.1');
      // Half the heads are a whole WebSocket handshake, each part then as drawn or as it should be.
      if (h.handshake) {
        h.connection ??= 'Upgrade';
        h.upgrade ??= 'websocket';
        h.wsKey ??= 'dGhlIHNhbXBsZSBub25jZQ==';
        h.version ??= '13';
      }
      if (h.connection !== undefined) lines.push(`Connection: ${h.connection}`);
      if (h.upgrade !== undefined) lines.push(`Upgrade: ${h.upgrade}`);
      if (h.wsKey !== undefined) lines.push(`Sec-WebSocket-Key: ${h.wsKey}`);
      if (h.version !== undefined) lines.push(`Sec-WebSocket-Version: ${h.version}`);
      if (h.framing === 'chunked' || h.framing === 'both') lines.push('Transfer-Encoding: chunked');
      if (h.framing === 'length' || h.framing === 'both') lines.push(`Content-Length: ${h.trailing.length}`);
      const text = `${h.method} ${path} HTTP/1.${h.http10 ? 0 : 1}\r\n${lines.map((l) => l + '\r\n').join('')}\r\n`;
      return { port, head: text, trailing: h.trailing, cut: cutAll ? Infinity : cutAt, end, startMs, cutMs } satisfies Case;
    });
}

/** Runs a case; answers its socket (still open unless it was reset) and the client port it used. */
async function runCase(c: Case, keys: Keys): Promise<{ socket: Socket; localPort: number | undefined }> {
  const bytes = bytesOf(c, keys);
  await pause(c.startMs);
  const socket = connect(c.port, '127.0.0.1');
  socket.on('error', () => undefined);
  socket.on('data', () => undefined);
  await new Promise<void>((resolve) => {
    socket.once('connect', () => resolve());
    socket.once('close', () => resolve());
  });
  const localPort = socket.localPort;
  if (socket.destroyed) return { socket, localPort };
  socket.write(bytes.subarray(0, Math.min(c.cut, bytes.length)));
  await pause(c.cutMs);
  if (c.end === 'rst') socket.resetAndDestroy();
  else if (c.end === 'fin') socket.end();
  // Left open: nothing more is read, so what the server writes fills the buffers.
  else socket.pause();
  return { socket, localPort };
}

// ---- what the server must still be ----

/**
 * Connections whose server end a process still holds a descriptor of (Linux /proc: a socket no process
 * holds any more, closing on its own, shows inode 0), by their peers' ports.
 */
function heldByServer(ports: number[], peers: Set<number>): number {
  const mine = new Set(ports.map((p) => p.toString(16).toUpperCase().padStart(4, '0')));
  let held = 0;
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 10) continue;
      if (mine.has(f[1]!.split(':')[1]!) && peers.has(parseInt(f[2]!.split(':')[1]!, 16)) && f[9] !== '0') held++;
    }
  }
  return held;
}

/** An operator read over a connection of its own (under `--workers` each lands on the next worker). */
function adminGet(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/_admin${path}`, { agent: false, headers: { authorization: `Bearer ${TOKEN}`, connection: 'close' } }, (res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (body += d));
      res.on('end', () => resolve({ status: res.statusCode!, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

async function until(what: string, test: () => Promise<boolean> | boolean, ms = 8_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await test())) {
    if (Date.now() > deadline) throw new Error(`waited ${ms} ms for ${what}`);
    await pause(100);
  }
}

function openWs(url: string): Promise<WebSocket | number> {
  return new Promise((done) => {
    const ws = new WebSocket(url);
    ws.once('open', () => done(ws));
    ws.once('unexpected-response', (_req, res) => {
      done(res.statusCode ?? 0);
      res.resume();
    });
    ws.once('error', () => done(0));
  });
}

interface EventLine {
  type: string;
  stream: string;
  data: { endpoint?: string; lines?: unknown };
}

async function eventsAfter(url: string, after: number): Promise<EventLine[]> {
  const r = await adminGet(url, `/events?after=${after}`);
  return r.body.split('\n').filter(Boolean).map((l) => JSON.parse(l) as EventLine);
}

async function logHead(url: string): Promise<number> {
  const r = await adminGet(url, '/events');
  const lines = r.body.split('\n').filter(Boolean);
  return lines.length === 0 ? 0 : (JSON.parse(lines[lines.length - 1]!) as { position: number }).position;
}

const configurations: Array<[string, () => Promise<Target>]> = [
  ['memory store, with --stream-port', () => inProcess('memory:', true)],
  ['SQLite file', () => inProcess(`sqlite:${join(dir, 'one.db')}`, false)],
  ['--workers 2 on SQLite', () => workers('fuzz-workers.db')],
];

describe.each(configurations)('raw sockets against the server (%s)', (name, startTarget) => {
  it(
    'stays up, answering; holds no descriptor, no place and no charge for what the clients cut',
    async () => {
      const target = await startTarget();
      const sdp = { url: target.url } as RunningSdp;
      let tried = 0;
      let batches = 0;
      let subscriptions = 0;

      /** The server still serves the batch's account as before the batch, and holds nothing of it. */
      const alive = async (ada: Awaited<ReturnType<typeof account>>, peers: Set<number>): Promise<void> => {
        expect((await ada.call('/validate', { csdl: 'fb.content contains "x"' })).status).toBe(200);
        await until('the server to close every connection of the cases', () => heldByServer(target.ports, peers) === 0);
        // Every worker is asked in turn (each lists its own), and none lists a connection.
        await until('no stream connection listed', async () => {
          for (let i = 0; i < 4; i++) {
            const r = await adminGet(target.url, '/streams');
            if (r.status !== 200 || (JSON.parse(r.body) as { connections: unknown[] }).connections.length > 0) return false;
          }
          return true;
        });
        // Every place of the account is free: it opens all of them, and no more.
        const places = `${target.url.replace(/^http/, 'ws')}/multi?username=${ada.username}&api_key=${ada.key}`;
        const opened: WebSocket[] = [];
        await until(`${PLACES} WebSockets open`, async () => {
          const got = await openWs(places);
          if (typeof got !== 'number') opened.push(got);
          return opened.length === PLACES;
        });
        expect(await openWs(places)).toBe(429);
        for (const ws of opened) ws.close();
        await until('the places freed', async () => {
          const again = await openWs(places);
          if (typeof again === 'number') return false;
          again.close();
          return true;
        });
        expect(target.output()).not.toMatch(/exited|unexpected error|Unhandled/);
      };

      await fc.assert(
        fc.asyncProperty(fc.array(caseArb(target.ports), { minLength: PER_BATCH, maxLength: PER_BATCH }), async (cases) => {
          // An account of its own for each batch: its opens an hour (60) are the batch's alone.
          const username = `fuzz${++batches}`;
          const ada = await account(sdp, username, { stream_connections: PLACES });
          const keys: Keys = { username, key: ada.key, hash: await ada.compile('fb.content contains "coffee"') };
          const head = await logHead(target.url);
          const before = await ada.remaining();
          const ran = await Promise.all(cases.map((c) => runCase(c, keys)));
          tried += cases.length;
          await pause(200);
          for (const { socket } of ran) socket.destroy();
          await alive(ada, new Set(ran.map((r) => r.localPort).filter((p): p is number => p !== undefined)));
          // The allowance moved only by what was charged, and the stream charged only its subscriptions.
          const events = (await eventsAfter(target.url, head)).filter((e) => e.stream.split(':').includes(username));
          const charges = events.filter((e) => e.type === 'CreditsCharged');
          const streamCharges = charges.filter((e) => e.data.endpoint?.startsWith('stream.'));
          const subscribed = events.filter((e) => e.type === 'StreamSubscribed');
          subscriptions += subscribed.length;
          expect(streamCharges.length).toBe(subscribed.length);
          const spent = before - (await ada.remaining());
          expect(spent).toBeGreaterThanOrEqual(5 * subscribed.length);
          if (charges.length === streamCharges.length) expect(spent).toBe(5 * subscribed.length);
        }),
        { numRuns: Math.max(1, Math.ceil(RUNS / PER_BATCH)), endOnFailure: true, ...REPLAY },
      );
      console.log(`raw sockets (${name}): ${tried} cases in ${batches} batches of ${PER_BATCH}; ${subscriptions} subscriptions charged`);
      expect(tried).toBeGreaterThanOrEqual(Math.min(RUNS, PER_BATCH));
    },
    300_000,
  );
});

/** Client-side TCP states of `locals` towards `port` (Linux /proc): the hex state of each, by local port. */
function clientStates(port: number, locals: Set<number>): Map<number, string> {
  const remote = port.toString(16).toUpperCase().padStart(4, '0');
  const states = new Map<number, string>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
      const f = line.trim().split(/\s+/);
      if (f.length < 4 || f[2]!.split(':')[1] !== remote) continue;
      const local = parseInt(f[1]!.split(':')[1]!, 16);
      if (locals.has(local)) states.set(local, f[3]!);
    }
  }
  return states;
}

/** The stream's own figures (`socket-guard.ts`): what a child process of `--workers` runs with. */
const DEFAULT_HANDSHAKE_MS = 10_000;
const REFUSAL_GRACE_MS = 1_000;
const SHORT_HANDSHAKE_MS = 500;

const halfOpenTargets: Array<[string, () => Promise<Target & { handshakeMs: number; close: () => Promise<void> }>]> = [
  [
    `one process, handshake deadline ${SHORT_HANDSHAKE_MS} ms`,
    async () => {
      const sdp = await startServer(settings(), { onError: (e) => console.error(e), streamHandshakeMs: SHORT_HANDSHAKE_MS });
      return { url: sdp.url, ports: [sdp.port], output: () => '', handshakeMs: SHORT_HANDSHAKE_MS, close: () => sdp.close() };
    },
  ],
  ['--workers 2', async () => ({ ...(await workers('half-open-workers.db')), handshakeMs: DEFAULT_HANDSHAKE_MS, close: async () => {} })],
];

describe.each(halfOpenTargets)('half-open upgrades (%s)', (_name, startTarget) => {
  const SOCKETS = 200;

  it(`${SOCKETS} sockets that send an upgrade's head, never read and never end are all closed by the server within the handshake deadline and the refusal's grace`, async () => {
    const target = await startTarget();
    const port = target.ports[0]!;
    const sockets: Socket[] = [];
    try {
      const ada = await account({ url: target.url } as RunningSdp, 'ada', { stream_connections: 3 });
      const ws = 'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n';
      const heads = [
        `GET /nowhere HTTP/1.1\r\nHost: x\r\n${ws}\r\n`,
        `GET /multi HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: h2c\r\n\r\n`,
        `GET /multi?username=ada&api_key=${ada.key} HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Key: short\r\nSec-WebSocket-Version: 13\r\n\r\n`,
        `GET /multi HTTP/1.1\r\nHost: x\r\n${ws}\r\n`,
        `GET /multi?username=ada&api_key=f0f0f0f0f0f0f0f0 HTTP/1.1\r\nHost: x\r\n${ws}\r\n`,
        `GET /${'e'.repeat(32)} HTTP/1.1\r\nHost: x\r\nAuthorization: ada:${ada.key}\r\n${ws}\r\n`,
        `POST /multi HTTP/1.1\r\nHost: x\r\n${ws}\r\n`,
        // Not upgrades: a head node:http cannot parse (its clientError), and a CONNECT (its own event).
        `BREW /multi HTTP/1.1\r\nHost: x\r\n${ws}\r\n`,
        `CONNECT 127.0.0.1:1 HTTP/1.1\r\nHost: 127.0.0.1:1\r\n\r\n`,
      ];
      const started = Date.now();
      await Promise.all(
        Array.from({ length: SOCKETS }, (_, i) =>
          new Promise<void>((resolve) => {
            const socket = connect(port, '127.0.0.1');
            socket.on('error', () => resolve());
            socket.pause();
            socket.once('connect', () => {
              // The whole head, then nothing: no FIN, and nothing read.
              socket.write(heads[i % heads.length]!);
              resolve();
            });
            sockets.push(socket);
          }),
        ),
      );
      const locals = new Set(sockets.map((s) => s.localPort).filter((p): p is number => p !== undefined));
      expect(locals.size).toBe(SOCKETS);
      // A FIN from the server is not enough (it ends the socket first, then destroys it after the grace):
      // what counts is that no process of the server holds the socket any more.
      let held = SOCKETS;
      const bound = target.handshakeMs + REFUSAL_GRACE_MS + 3_000;
      while ((held = heldByServer([port], locals)) > 0 && Date.now() - started < bound) await pause(50);
      const took = Date.now() - started;
      const states = clientStates(port, locals);
      const finished = [...locals].filter((p) => states.get(p) === undefined || states.get(p) === '08').length;
      console.log(`half-open upgrades: ${SOCKETS - held} of ${SOCKETS} released by the server in ${took} ms, ${finished} of them ended towards the client on ${_name} (grace ${REFUSAL_GRACE_MS} ms)`);
      expect(held).toBe(0);
      expect(finished).toBe(SOCKETS);
      expect(JSON.parse((await adminGet(target.url, '/streams')).body)).toEqual({ connections: [] });
      expect(target.output()).not.toMatch(/exited|unexpected error|Unhandled/);
    } finally {
      for (const s of sockets) s.destroy();
      await target.close();
    }
  }, 60_000);
});
