import { createServer, type IncomingMessage, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Engine, type Handler } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { ManualClock } from '@sdp/clock';
import { createFetchHandler } from './fetch-handler.ts';
import { createNodeListener, createNodeServer, keepRequestOpen, serve } from './node-listener.ts';

const KEY = 'alice-key-0001';
const probe: Handler = (ctx) => ({ body: { params: ctx.params.raw } });

async function engine(): Promise<Engine> {
  const e = new Engine({ store: new MemoryEventStore(), clock: new ManualClock(Date.parse('2026-03-02T08:05:37Z')), ids: seededIds(3), handlers: { 'push.get': probe } });
  await e.openAccount({ username: 'alice', api_key: KEY });
  return e;
}

const servers: Server[] = [];
afterEach(() => Promise.all(servers.splice(0).map((s) => new Promise((r) => s.close(r)))));

/** A server whose middleware reads the whole body first, as a framework's body parser does, then hands over. */
async function behindParser(parse: (req: IncomingMessage, raw: Buffer) => void, listener: ReturnType<typeof createNodeListener>): Promise<string> {
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      parse(req, Buffer.concat(chunks));
      listener(req, res);
    });
  });
  servers.push(server);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const call = (base: string, type: string, body: string) =>
  fetch(`${base}/v1.5/push/get`, { method: 'POST', headers: { authorization: `alice:${KEY}`, 'content-type': type }, body });

describe('the Node listener behind a body parser', () => {
  it('reads JSON and form bodies a parser already consumed (req.body with body-parser\'s mark)', async () => {
    const base = await behindParser((req, raw) => {
      const r = req as IncomingMessage & { body?: unknown; _body?: boolean };
      const type = req.headers['content-type'] ?? '';
      r.body = type.includes('json') ? JSON.parse(raw.toString()) : Object.fromEntries(new URLSearchParams(raw.toString()));
      r._body = true;
    }, createNodeListener(await engine()));
    const j = await call(base, 'application/json', JSON.stringify({ id: 'abc', n: 2 }));
    expect(j.status).toBe(200);
    expect(((await j.json()) as any).params).toEqual({ id: 'abc', n: 2 });
    const f = await call(base, 'application/x-www-form-urlencoded', 'id=abc&n=2');
    expect(((await f.json()) as any).params).toEqual({ id: 'abc', n: '2' });
  });

  it('prefers the raw bytes a framework kept (req.rawBody), and still refuses a body over the limit', async () => {
    const base = await behindParser((req, raw) => void ((req as IncomingMessage & { rawBody?: Buffer }).rawBody = raw), createNodeListener(await engine(), { bodyLimit: 1024 }));
    const f = await call(base, 'application/x-www-form-urlencoded', 'id=xyz');
    expect(((await f.json()) as any).params).toEqual({ id: 'xyz' });
    expect((await call(base, 'application/json', JSON.stringify({ id: 'x'.repeat(2000) }))).status).toBe(413);
  });
});

describe('a body alone', () => {
  it('gives its parameters to the handler without a __proto__ key, with or without a query beside it', async () => {
    const handle = createFetchHandler(await engine());
    const body = '{"__proto__":{"polluted":true},"id":"a"}';
    for (const query of ['', '?n=1']) {
      const r = await handle(new Request(`http://x/v1.5/push/get${query}`, { method: 'POST', headers: { authorization: `alice:${KEY}`, 'content-type': 'application/json' }, body }));
      const params = ((await r.json()) as { params: Record<string, unknown> }).params;
      expect(Object.keys(params).sort()).toEqual(query ? ['id', 'n'] : ['id']);
      expect(Object.getPrototypeOf(params)).toBe(Object.prototype);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    }
  });
});

describe('basePath', () => {
  it('serves the API under a prefix the framework passes on, and nothing outside it', async () => {
    const handle = createFetchHandler(await engine(), { basePath: '/api/' });
    const at = (path: string) => handle(new Request(`http://x${path}?id=q`, { headers: { authorization: `alice:${KEY}` } }));
    const r = await at('/api/v1.5/push/get');
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-remaining')).toMatch(/^\d+$/);
    expect((await at('/apiv1.5/push/get')).status).toBe(404);
  });
});

/** One request as raw bytes over a socket (fetch and Node's client join or refuse repeated headers); the whole answer as text. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.end(text));
    let out = '';
    socket.on('data', (d) => (out += d.toString()));
    socket.on('end', () => resolve(out));
    socket.on('error', reject);
  });
}

describe('the Node listener over a socket', () => {
  it('refuses a request with two Authorization headers, in any case, and serves one with a single header', async () => {
    const running = await serve(await engine(), { port: 0 });
    try {
      const ask = (headers: string) => rawRequest(running.port, `GET /v1.5/push/get?id=a HTTP/1.1\r\nHost: x\r\n${headers}Connection: close\r\n\r\n`);
      const twice = await ask(`Authorization: alice:${KEY}\r\nauthorization: mallory:${KEY}\r\n`);
      expect(twice).toMatch(/^HTTP\/1.1 400 /);
      expect(twice).toContain('Send one Authorization header, not several');
      const once = await ask(`AUTHORIZATION: alice:${KEY}\r\n`);
      expect(once).toMatch(/^HTTP\/1.1 200 /);
    } finally {
      await running.close();
    }
  });

  it('answers an HTTP/1.1 request without Host with a JSON 400 and X-API-Version, body or not; HTTP/1.0 needs none', async () => {
    const running = await serve(await engine(), { port: 0 });
    try {
      const bare = await rawRequest(running.port, `GET /v1.5/push/get?id=a HTTP/1.1\r\nAuthorization: alice:${KEY}\r\n\r\n`);
      expect(bare).toMatch(/^HTTP\/1\.1 400 /);
      expect(bare).toMatch(/\r\nX-API-Version: 1\.5\r\n/i);
      expect(bare).toMatch(/\r\nContent-Type: application\/json; charset=utf-8\r\n/i);
      expect(JSON.parse(bare.slice(bare.indexOf('\r\n\r\n') + 4))).toEqual({ error: 'Bad Request: an HTTP/1.1 request must carry a Host header' });
      const body = JSON.stringify({ id: 'a' });
      const withBody = await rawRequest(running.port, `POST /v1.5/push/get HTTP/1.1\r\nAuthorization: alice:${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`);
      expect(withBody).toMatch(/^HTTP\/1\.1 400 [^]*"error":"Bad Request: an HTTP\/1\.1 request must carry a Host header"/);
      const old = await rawRequest(running.port, `GET /v1.5/push/get?id=a HTTP/1.0\r\nAuthorization: alice:${KEY}\r\n\r\n`);
      expect(old).toMatch(/^HTTP\/1\.1 200 /);
    } finally {
      await running.close();
    }
  });

  it('answers CONNECT with a JSON 405 and Allow instead of closing the socket unanswered', async () => {
    const running = await serve(await engine(), { port: 0 });
    try {
      for (const target of ['example.com:443', '127.0.0.1:22']) {
        const answer = await rawRequest(running.port, `CONNECT ${target} HTTP/1.1\r\nHost: ${target}\r\n\r\n`);
        expect(answer).toMatch(/^HTTP\/1\.1 405 Method Not Allowed\r\n/);
        expect(answer).toMatch(/\r\nAllow: GET, POST, PUT, DELETE, OPTIONS\r\n/);
        expect(answer).toMatch(/\r\nX-API-Version: 1\.5\r\n/);
        expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error).toMatch(/^Method CONNECT not allowed/);
      }
    } finally {
      await running.close();
    }
  });

  it('refuses two Idempotency-Key headers (Node joins them into one key "d1, d2") and a key holding a comma, on both faces', async () => {
    const e = await engine();
    const running = await serve(e, { port: 0 });
    try {
      const body = JSON.stringify({ id: 'a' });
      const ask = (headers: string) =>
        rawRequest(running.port, `POST /v1.5/push/get HTTP/1.1\r\nHost: x\r\nAuthorization: alice:${KEY}\r\nContent-Type: application/json\r\n${headers}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`);
      for (const headers of ['Idempotency-Key: d1\r\nidempotency-key: d2\r\n', 'Idempotency-Key: d1\r\nIdempotency-Key: d1\r\n', 'Idempotency-Key: d1,d2\r\n']) {
        const answer = await ask(headers);
        expect(answer, headers).toMatch(/^HTTP\/1\.1 400 /);
        expect(answer).toContain('Send one Idempotency-Key header, not several (a key has no commas)');
        expect(answer).toMatch(/\r\nX-API-Version: 1\.5\r\n/);
      }
      expect(await ask('Idempotency-Key: d1\r\n')).toMatch(/^HTTP\/1\.1 200 /);
      // GET calls ignore the header, repeated or not.
      expect(await rawRequest(running.port, `GET /v1.5/push/get?id=a HTTP/1.1\r\nHost: x\r\nAuthorization: alice:${KEY}\r\nIdempotency-Key: d1\r\nIdempotency-Key: d2\r\nConnection: close\r\n\r\n`)).toMatch(/^HTTP\/1\.1 200 /);

      const fetchFace = createFetchHandler(e);
      const headers = new Headers({ authorization: `alice:${KEY}`, 'content-type': 'application/json' });
      headers.append('idempotency-key', 'd1');
      headers.append('idempotency-key', 'd2');
      const refused = await fetchFace(new Request('http://sdp.test/v1.5/push/get', { method: 'POST', headers, body }));
      expect(refused.status).toBe(400);
      expect(((await refused.json()) as { error: string }).error).toBe('Send one Idempotency-Key header, not several (a key has no commas)');
    } finally {
      await running.close();
    }
  });

  it('reads a body sent in several pieces, and one cut short charges nothing and is no server error (logged 499)', async () => {
    const e = await engine();
    const errors: unknown[] = [];
    const logged: number[] = [];
    const running = await serve(e, { port: 0, onError: (error) => errors.push(error), onAccess: (entry) => logged.push(entry.status) });
    try {
      const body = JSON.stringify({ id: 'x'.repeat(100) });
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(running.port, '127.0.0.1', () => {
          socket.write(`POST /v1.5/push/get HTTP/1.1\r\nHost: x\r\nAuthorization: alice:${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`);
          socket.write(body.slice(0, 10));
          setTimeout(() => socket.write(body.slice(10, 50)), 20);
          setTimeout(() => socket.end(body.slice(50)), 40);
        });
        let out = '';
        socket.on('data', (d) => (out += d.toString()));
        socket.on('end', () => resolve(out));
        socket.on('error', reject);
      });
      expect(answer).toMatch(/^HTTP\/1.1 200 /);
      expect(answer).toContain(`"id":"${'x'.repeat(100)}"`);
      const before = await e.store.head();
      await new Promise<void>((resolve) => {
        const socket = connect(running.port, '127.0.0.1', () => {
          socket.write(`POST /v1.5/push/get HTTP/1.1\r\nHost: x\r\nAuthorization: alice:${KEY}\r\nContent-Type: application/json\r\nContent-Length: 500\r\n\r\n{"id":`);
          setTimeout(() => socket.destroy(), 30);
        });
        socket.on('close', () => resolve());
      });
      await expect.poll(() => logged.length).toBe(2);
      expect(await e.store.head()).toBe(before);
      expect(errors).toEqual([]);
      expect(logged).toEqual([200, 499]);
    } finally {
      await running.close();
    }
  });
});

describe('small bodies read before the handler runs', () => {
  it('within the limit are served, over a small limit refused 413, and the connection carries on; chunked bodies too', async () => {
    const e = await engine();
    const running = await serve(e, { port: 0, bodyLimit: 64 });
    try {
      const post = (body: string, extra = '') => `POST /v1.5/push/get HTTP/1.1\r\nHost: x\r\nAuthorization: alice:${KEY}\r\nContent-Type: application/json\r\n${extra}Content-Length: ${body.length}\r\n\r\n${body}`;
      const within = JSON.stringify({ id: 'a' });
      const over = JSON.stringify({ id: 'x'.repeat(200) });
      // Three requests on one connection: the 413 closes it, so the last one is never answered.
      const answer = await rawRequest(running.port, post(within) + post(over) + post(within));
      const statuses = [...answer.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => m[1]);
      expect(statuses).toEqual(['200', '413']);
      expect(answer).toContain('"id":"a"');
      expect(answer).toContain('over the limit of 64 bytes');
      const chunked = `POST /v1.5/push/get HTTP/1.1\r\nHost: x\r\nAuthorization: alice:${KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${within.length.toString(16)}\r\n${within}\r\n0\r\n\r\n`;
      expect(await rawRequest(running.port, chunked)).toMatch(/^HTTP\/1\.1 200 [\s\S]*"id":"a"/);
    } finally {
      await running.close();
    }
  });
});

describe('Expect headers', () => {
  it('serves a request whose Expect is empty or unknown as if it were not there (Node alone answers a bare 417)', async () => {
    const e = await engine();
    const running = await serve(e, { port: 0 });
    try {
      const body = JSON.stringify({ id: 'a' });
      for (const expect_ of ['Expect: \r\n', 'Expect: something-else\r\n']) {
        const request = `POST /v1.5/push/get HTTP/1.1\r\nHost: x\r\nAuthorization: alice:${KEY}\r\nContent-Type: application/json\r\n${expect_}Content-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`;
        const answer = await rawRequest(running.port, request);
        expect(answer, expect_).toMatch(/^HTTP\/1\.1 200 /);
        expect(answer).toMatch(/X-API-Version: 1\.5/i);
        expect(answer).toContain('"id":"a"');
      }
    } finally {
      await running.close();
    }
  });
});

describe("the server's whole-request time limit (createNodeServer's requestTimeoutMs), kept by node:http", () => {
  /** The API's server with a short limit, as `listen` makes it; `open` marks each request's connection kept open. */
  async function timed(ms: number, open = false): Promise<number> {
    const listener = createNodeListener(await engine());
    const server = createNodeServer(async () => ({ status: 500, headers: {} }), { requestTimeoutMs: ms });
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res) => {
      if (open) keepRequestOpen(req.socket);
      listener(req, res);
    });
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    return (server.address() as AddressInfo).port;
  }

  /** Sends the request's head and then a byte every `everyMs`; what came back, once the server closed or `untilMs` passed. */
  async function dribbled(port: number, head: string, byte: string, everyMs: number, untilMs = 5_000): Promise<{ text: string; ms: number; closed: boolean }> {
    const started = performance.now();
    const socket = connect(port, '127.0.0.1');
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (d: string) => (text += d));
    socket.on('error', () => undefined);
    socket.write(head);
    const timer = setInterval(() => socket.writable && socket.write(byte), everyMs);
    const closed = await Promise.race([new Promise<boolean>((r) => socket.once('close', () => r(true))), new Promise<boolean>((r) => setTimeout(() => r(false), untilMs))]);
    clearInterval(timer);
    socket.destroy();
    return { text, ms: performance.now() - started, closed };
  }

  const head = (framing: string) => `POST /v1.5/push/get HTTP/1.1\r\nHost: x\r\nAuthorization: alice:${KEY}\r\nContent-Type: application/x-www-form-urlencoded\r\n${framing}\r\n\r\n`;

  it('a body not in within the time is answered 408 as JSON and the connection closed, sized or chunked; a body in time is served', async () => {
    const port = await timed(300);
    const sized = await dribbled(port, head('Content-Length: 1000'), 'a', 50);
    expect(sized.text).toMatch(/^HTTP\/1\.1 408 Request Timeout\r\n/);
    expect(sized.text).toContain('Connection: close');
    expect(sized.text).toContain('{"error":"Request Timeout');
    expect(sized.ms).toBeGreaterThanOrEqual(280);
    expect(sized.ms).toBeLessThan(3_000);
    const chunked = await dribbled(port, head('Transfer-Encoding: chunked'), '1\r\na\r\n', 50);
    expect(chunked.text).toMatch(/^HTTP\/1\.1 408 /);
    const inTime = await fetch(`http://127.0.0.1:${port}/v1.5/push/get`, { method: 'POST', headers: { authorization: `alice:${KEY}`, 'content-type': 'application/x-www-form-urlencoded' }, body: 'id=x' });
    expect(inTime.status).toBe(200);
  });

  it('a request kept open (keepRequestOpen, as the stream keeps its duplex one) outlives the limit', async () => {
    const port = await timed(300, true);
    const kept = await dribbled(port, head('Transfer-Encoding: chunked'), '1\r\na\r\n', 50, 1_200);
    expect(kept.closed).toBe(false);
    expect(kept.text).toBe('');
  });
});

describe('an answer node:http refuses to write', () => {
  it('is a bare 500, not the process ended, whether the handler answered at once or with a promise; the server serves on', async () => {
    const bad = () => ({ status: 200, headers: { 'X-Bad': 'one\ntwo' }, body: '{}' });
    const badStream = () => ({ status: 200, headers: { 'X-Bad': 'one\ntwo' }, stream: (async function* () { yield '{}'; })() });
    for (const handler of [bad, async () => bad(), badStream]) {
      const server = createNodeServer(handler);
      servers.push(server);
      await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
      const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      for (let i = 0; i < 2; i++) {
        const res = await fetch(`${base}/v1.5/usage`);
        expect([res.status, await res.text()]).toEqual([500, '{"error":"Internal error"}']);
      }
    }
  });
});
