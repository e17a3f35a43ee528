import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ownEndpointProblem } from '@sdp/core';
import { nodeOutbound } from './outbound.ts';

interface Seen {
  method: string;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

const seen: Seen[] = [];
let server: Server;
let base: string;
const open: ServerResponse[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      seen.push({ method: req.method!, headers: req.headers, body: Buffer.concat(chunks) });
      if (req.url === '/fail') res.writeHead(500).end('no');
      else if (req.url === '/moved') res.writeHead(302, { Location: '/ok' }).end();
      else if (req.url === '/slow') open.push(res);
      else res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  for (const r of open) r.end();
  await new Promise((r) => server.close(r));
});

const req = (path: string, over: Partial<Parameters<ReturnType<typeof nodeOutbound>['send']>[0]> = {}) => ({
  url: `${base}${path}`,
  method: 'POST' as const,
  headers: { 'Content-Type': 'application/json', 'X-SDP-Delivery-Id': 'abc' },
  body: '[{"a":1}]',
  gzip: false,
  verifyTls: true,
  ...over,
});

describe('nodeOutbound (the core outbound port over node:http)', () => {
  it('sends the method, headers and body, and answers the status', async () => {
    const out = nodeOutbound();
    expect(await out.send(req('/ok', { method: 'PUT' }))).toEqual({ status: 200 });
    const last = seen.at(-1)!;
    expect(last.method).toBe('PUT');
    expect(last.headers['x-sdp-delivery-id']).toBe('abc');
    expect(last.body.toString()).toBe('[{"a":1}]');
  });

  it('gzips the body when asked, with Content-Encoding', async () => {
    expect(await nodeOutbound().send(req('/ok', { gzip: true }))).toEqual({ status: 200 });
    const last = seen.at(-1)!;
    expect(last.headers['content-encoding']).toBe('gzip');
    expect(gunzipSync(last.body).toString()).toBe('[{"a":1}]');
  });

  it('answers a 5xx as a status and never follows a redirect', async () => {
    expect(await nodeOutbound().send(req('/fail'))).toEqual({ status: 500 });
    const before = seen.length;
    expect(await nodeOutbound().send(req('/moved'))).toEqual({ status: 302 });
    expect(seen.length).toBe(before + 1);
  });

  it('names a refused connection and a receiver that does not answer in time', async () => {
    const closed = createServer();
    await new Promise<void>((r) => closed.listen(0, '127.0.0.1', r));
    const port = (closed.address() as AddressInfo).port;
    await new Promise((r) => closed.close(r));
    expect(await nodeOutbound().send(req('/', { url: `http://127.0.0.1:${port}/` }))).toEqual({ error: 'connection refused' });
    expect(await nodeOutbound({ timeoutMs: 200 }).send(req('/slow'))).toEqual({ error: 'no answer within 0.2 s' });
  });

  it('asks refuse of the address really connected to, a resolved name included, and sends nothing refused', async () => {
    const port = Number(new URL(base).port);
    const asked: Array<[string, number]> = [];
    const refuse = (address: string, p: number) => (asked.push([address, p]), ownEndpointProblem(address, p, { ports: [port], addresses: [] }));
    const before = seen.length;
    expect(await nodeOutbound({ refuse }).send(req('/ok', { url: `http://localhost:${port}/ok` }))).toEqual({
      error: expect.stringMatching(/^localhost resolves to (127\.0\.0\.1|::1): this server does not deliver to itself/),
    });
    expect(await nodeOutbound({ refuse }).send(req('/ok', { url: `http://127.0.0.1:${port}/ok` }))).toEqual({ error: expect.stringMatching(/does not deliver to itself/) });
    expect(await nodeOutbound({ refuse }).send(req('/ok', { url: `http://[::ffff:127.0.0.1]:${port}/ok` }))).toEqual({ error: expect.stringMatching(/does not deliver to itself/) });
    expect(seen.length).toBe(before);
    expect(asked.map(([, p]) => p)).toEqual(asked.map(() => port));
    // Allowed addresses go through the same lookup and are sent as before.
    expect(await nodeOutbound({ refuse: () => null }).send(req('/ok', { url: `http://localhost:${port}/ok` }))).toEqual({ status: 200 });
    expect(seen.length).toBe(before + 1);
  });
});
