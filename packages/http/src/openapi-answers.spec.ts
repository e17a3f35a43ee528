import { request } from 'node:http';
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CURRENT_VERSION } from '@sdp/core';
import { createApiHandler, type CallAnswerer } from './api-handler.ts';
import { createFetchHandler } from './fetch-handler.ts';
import { FixedBody } from './fixed-body.ts';
import { serve, type RunningServer } from './node-listener.ts';
import { openApiDocument } from './openapi.ts';

// The documents are answered without the engine: one that is asked anything fails the test.
const noEngine: CallAnswerer = {
  call: () => {
    throw new Error('the engine was asked');
  },
};

const fresh = (version = CURRENT_VERSION) => JSON.parse(JSON.stringify(openApiDocument(version, { product: 'social' }))) as unknown;

describe('FixedBody', () => {
  const asked = (headers: Record<string, string> = {}) => ({ header: (name: string) => headers[name] });

  it('gives each coding its own strong tag, the same for the same bytes in another instance', async () => {
    const one = new FixedBody('{"a":1}', { contentType: 'application/json' });
    const plain = await one.answer(asked());
    const gzip = await one.answer(asked({ 'accept-encoding': 'gzip' }));
    expect(plain.headers.ETag).toMatch(/^"[0-9a-f]{32}"$/);
    expect(gzip.headers.ETag).toBe(plain.headers.ETag!.slice(0, -1) + '-gzip"');
    expect((await new FixedBody(new TextEncoder().encode('{"a":1}'), { contentType: 'application/json' }).answer(asked())).headers.ETag).toBe(plain.headers.ETag);
    expect((await new FixedBody('{"a":2}', { contentType: 'application/json' }).answer(asked())).headers.ETag).not.toBe(plain.headers.ETag);
  });

  it('makes each coding once, however many ask at the same time, and gives every answer its own headers', async () => {
    const body = new FixedBody('x'.repeat(10_000), { contentType: 'text/plain', headers: { 'X-Kept': '1' } });
    const answers = await Promise.all(Array.from({ length: 20 }, () => body.answer(asked({ 'accept-encoding': 'gzip' }))));
    expect(new Set(answers.map((a) => a.body)).size).toBe(1);
    answers[0]!.headers['X-Kept'] = 'changed';
    expect((await body.answer(asked({ 'accept-encoding': 'gzip' }))).headers['X-Kept']).toBe('1');
  });

  it('answers If-None-Match with 304 only for the tag of the coding the request gets (W/ and * as RFC 9110 reads them)', async () => {
    const body = new FixedBody('{"a":1}', { contentType: 'application/json', headers: { 'Cache-Control': 'no-cache' } });
    const plain = (await body.answer(asked())).headers.ETag!;
    const gzip = (await body.answer(asked({ 'accept-encoding': 'gzip' }))).headers.ETag!;
    const notModified = await body.answer(asked({ 'if-none-match': plain }));
    expect(notModified).toEqual({ status: 304, headers: { ETag: plain, Vary: 'Accept-Encoding', 'Cache-Control': 'no-cache' } });
    expect((await body.answer(asked({ 'if-none-match': `"other", W/${plain}` }))).status).toBe(304);
    expect((await body.answer(asked({ 'if-none-match': '*' }))).status).toBe(304);
    expect((await body.answer(asked({ 'if-none-match': gzip }))).status).toBe(200);
    expect((await body.answer(asked({ 'if-none-match': gzip, 'accept-encoding': 'gzip' }))).status).toBe(304);
    expect((await body.answer(asked({ 'if-none-match': '"other"' }))).status).toBe(200);
  });
});

describe('GET /openapi.json through the handler both faces share', () => {
  it('answers every request with the bytes made for the first: the document is built and compressed once', async () => {
    const handler = createApiHandler(noEngine, { product: 'social' });
    const ask = (encoding?: string) =>
      handler({ method: 'GET', url: '/v1.4/openapi.json', header: (name) => (name === 'accept-encoding' ? encoding : undefined), readBody: async () => new Uint8Array(0) });
    const [plain, again, zipped, zippedAgain] = [await ask(), await ask(), await ask('gzip'), await ask('gzip')];
    expect(plain.body).toBeInstanceOf(Uint8Array);
    expect(again.body).toBe(plain.body);
    expect(zippedAgain.body).toBe(zipped.body);
    expect(zipped.body).not.toBe(plain.body);
    expect(JSON.parse(new TextDecoder().decode(plain.body as Uint8Array))).toEqual(fresh('1.4'));
  });
});

describe('GET /openapi.json through the fetch face', () => {
  const handler = createFetchHandler(noEngine, { product: 'social' });
  const get = (path: string, headers: Record<string, string> = {}, method = 'GET') => handler(new Request(`http://x${path}`, { method, headers }));

  it('without Accept-Encoding: the document as built, with a strong ETag, Vary and no-cache', async () => {
    const r = await get('/openapi.json');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-encoding')).toBeNull();
    expect(r.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
    expect(r.headers.get('vary')).toBe('Accept-Encoding');
    expect(r.headers.get('cache-control')).toBe('no-cache');
    expect(r.headers.get('x-api-version')).toBe(CURRENT_VERSION);
    expect(r.headers.get('access-control-allow-origin')).toBe('*');
    const bytes = new Uint8Array(await r.arrayBuffer());
    expect(Number(r.headers.get('content-length'))).toBe(bytes.byteLength);
    expect(JSON.parse(new TextDecoder().decode(bytes))).toEqual(fresh());
  });

  it('with gzip: compressed bytes that decompress to the same document, under their own tag', async () => {
    const plain = await get('/v1.3/openapi.json');
    const r = await get('/v1.3/openapi.json', { 'accept-encoding': 'gzip, deflate, br' });
    expect(r.headers.get('content-encoding')).toBe('gzip');
    expect(r.headers.get('x-api-version')).toBe('1.3');
    expect(r.headers.get('etag')).toBe(plain.headers.get('etag')!.slice(0, -1) + '-gzip"');
    const zipped = Buffer.from(await r.arrayBuffer());
    expect(zipped.byteLength).toBe(Number(r.headers.get('content-length')));
    const text = await plain.text();
    expect(zipped.byteLength).toBeLessThan(text.length / 5);
    expect(gunzipSync(zipped).toString('utf8')).toBe(text);
    expect(JSON.parse(text)).toEqual(fresh('1.3'));
  });

  it('the ETag round trip: 304 with no body, for each coding', async () => {
    for (const headers of [{}, { 'accept-encoding': 'gzip' }] as Record<string, string>[]) {
      const first = await get('/openapi.json', headers);
      await first.arrayBuffer();
      const again = await get('/openapi.json', { ...headers, 'if-none-match': first.headers.get('etag')! });
      expect(again.status).toBe(304);
      expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
      expect(again.headers.get('content-encoding')).toBeNull();
      expect(await again.text()).toBe('');
    }
  });

  it('HEAD: the headers of GET, no body', async () => {
    const got = await get('/openapi.json', { 'accept-encoding': 'gzip' });
    const head = await get('/openapi.json', { 'accept-encoding': 'gzip' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(await head.text()).toBe('');
    for (const name of ['etag', 'content-length', 'content-encoding', 'content-type']) expect(head.headers.get(name), name).toBe(got.headers.get(name));
  });

  it('an unknown version is still the 404 it was', async () => {
    const r = await get('/v9.9/openapi.json', { 'accept-encoding': 'gzip' });
    expect(r.status).toBe(404);
    expect(r.headers.get('etag')).toBeNull();
  });
});

describe('GET /openapi.json from the Node listener, over a socket', () => {
  let server: RunningServer;
  beforeAll(async () => {
    server = await serve(noEngine, { port: 0, product: 'social' });
  });
  afterAll(() => server.close());

  /** node:http's client: it sends no Accept-Encoding of its own and decompresses nothing. */
  const raw = (path: string, headers: Record<string, string> = {}, method = 'GET') =>
    new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
      const req = request(`${server.url}${path}`, { method, headers }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }));
      });
      req.on('error', reject);
      req.end();
    });

  it('identity without Accept-Encoding, gzip with it, both the freshly built document', async () => {
    const plain = await raw('/openapi.json');
    expect(plain.status).toBe(200);
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(Number(plain.headers['content-length'])).toBe(plain.body.byteLength);
    expect(JSON.parse(plain.body.toString('utf8'))).toEqual(fresh());
    const zipped = await raw('/openapi.json', { 'Accept-Encoding': 'gzip;q=1.0, identity;q=0.5' });
    expect(zipped.headers['content-encoding']).toBe('gzip');
    expect(zipped.headers.vary).toBe('Accept-Encoding');
    expect(Number(zipped.headers['content-length'])).toBe(zipped.body.byteLength);
    expect(gunzipSync(zipped.body).equals(plain.body)).toBe(true);
    // Refused gzip: the bytes as they are.
    expect((await raw('/openapi.json', { 'Accept-Encoding': 'gzip;q=0' })).headers['content-encoding']).toBeUndefined();
  });

  it('the ETag round trip: 304, no body, no Content-Length', async () => {
    const first = await raw('/v1.2/openapi.json', { 'Accept-Encoding': 'gzip' });
    const again = await raw('/v1.2/openapi.json', { 'Accept-Encoding': 'gzip', 'If-None-Match': String(first.headers.etag) });
    expect(again.status).toBe(304);
    expect(again.body.byteLength).toBe(0);
    expect(again.headers.etag).toBe(first.headers.etag);
    expect(again.headers['x-api-version']).toBe('1.2');
    expect(again.headers['content-length']).toBeUndefined();
  });

  it('HEAD: the Content-Length of GET, no body', async () => {
    const got = await raw('/openapi.json');
    const head = await raw('/openapi.json', {}, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.byteLength).toBe(0);
    expect(head.headers['content-length']).toBe(String(got.body.byteLength));
    expect(head.headers.etag).toBe(got.headers.etag);
  });
});
