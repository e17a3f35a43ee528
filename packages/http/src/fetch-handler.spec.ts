import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Engine, findVersion, type Handler } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { ManualClock } from '@sdp/clock';
import { createApiHandler, type CallAnswerer } from './api-handler.ts';
import { createFetchHandler } from './fetch-handler.ts';
import { serve, type RunningServer } from './node-listener.ts';
import type { AccessEntry } from './wire.ts';

const T0 = Date.parse('2026-03-02T08:05:37Z');
const KEY = 'alice-key-0001';
const AUTH = { authorization: `alice:${KEY}` };

/**
 * A probe in place of an endpoint's behaviour: it answers what the HTTP face handed the engine, so these
 * tests observe the decoding itself. The engine around it (auth, allowance, charge) is the real one.
 */
const probe: Handler = (ctx) => ({ body: { params: ctx.params.raw, mediaType: ctx.call.mediaType ?? null, body: ctx.call.body ?? null } });
const probeHandlers = {
  'push.get': probe,
  'account.identity.update': probe,
  'ingest': probe,
  'tasks.create': probe,
  'push.delete': () => ({}),
  'push.pull': () => ({ body: [], headers: { 'X-DataSift-Format': 'json_new_line', 'X-DataSift-Cursor-Next': 'c'.repeat(32) } }),
};

async function setup(options: Parameters<typeof createFetchHandler>[1] = {}) {
  const engine = new Engine({ store: new MemoryEventStore(), clock: new ManualClock(T0), ids: seededIds(7), handlers: probeHandlers });
  await engine.openAccount({ username: 'alice', api_key: KEY });
  return { engine, fetch: createFetchHandler(engine, options) };
}

const json = (r: Response): Promise<any> => r.json();
const req = (path: string, init: RequestInit = {}) => new Request(`http://sdp.test${path}`, init);

describe('createFetchHandler: decoding', () => {
  it('merges query, JSON body and path parameters; the path wins', async () => {
    const { fetch } = await setup();
    const r = await fetch(req('/v1.5/account/identity/' + 'a'.repeat(32) + '?label=q&x=1', {
      method: 'PUT',
      headers: { ...AUTH, 'content-type': 'application/json' },
      body: JSON.stringify({ label: 'b', id: 'echoed', nested: { a: [1] } }),
    }));
    expect(r.status).toBe(200);
    expect((await json(r)).params).toEqual({ label: 'b', x: '1', id: 'a'.repeat(32), nested: { a: [1] } });
  });
  it('reads form bodies and query-only PUTs as sent by the Java and Node clients', async () => {
    const { fetch } = await setup();
    const form = await fetch(req('/v1.5/push/get', { method: 'POST', headers: { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' }, body: 'id=abc&output_params.bucket=b' }));
    expect((await json(form)).params).toEqual({ id: 'abc', 'output_params.bucket': 'b' });
    const put = await fetch(req('/v1.5/account/identity/' + 'b'.repeat(32) + '?status=active', { method: 'PUT', headers: AUTH }));
    expect((await json(put)).params).toEqual({ status: 'active', id: 'b'.repeat(32) });
  });
  it('hands ingestion its raw body, and every call its media type', async () => {
    const { fetch } = await setup();
    const lines = '{"a":1}\n{"a":2}\n';
    const r = await fetch(req('/ingest/' + 'c'.repeat(32) + '?x=1', { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: lines }));
    expect(await json(r)).toEqual({ params: { x: '1', source_id: 'c'.repeat(32) }, mediaType: 'application/json', body: lines });
    const task = await fetch(req('/v1.5/insight/facebook/task', { method: 'POST', headers: { ...AUTH, 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1' }));
    expect((await json(task)).mediaType).toBe('application/x-www-form-urlencoded');
  });
  it('authenticates with each of the three forms', async () => {
    const { fetch } = await setup();
    for (const headers of [AUTH, { auth: `alice:${KEY}` }, { authorization: `Basic ${btoa(`alice:${KEY}`)}` }]) {
      expect((await fetch(req('/v1.5/push/get', { headers }))).status).toBe(200);
    }
    expect((await fetch(req('/v1.5/push/get', { headers: { authorization: 'alice:wrong-key-000' } }))).status).toBe(401);
  });
});

describe('createFetchHandler: encoding', () => {
  it('sends the version, the five rate-limit figures and a JSON body', async () => {
    const { fetch } = await setup();
    const r = await fetch(req('/v1.2/push/get', { headers: AUTH }));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(r.headers.get('x-api-version')).toBe('1.2');
    expect(r.headers.get('x-ratelimit-limit')).toBe('10000');
    expect(r.headers.get('x-ratelimit-remaining')).toBe('9999');
    expect(r.headers.get('x-ratelimit-cost')).toBe('1');
    // The window opened at 08:05:00 resets at 09:05:00 (docs/contract.md#hourly-allowances).
    expect(r.headers.get('x-ratelimit-reset')).toBe(String(Date.parse('2026-03-02T09:05:00Z') / 1000));
    expect(r.headers.get('x-ratelimit-reset-ttl')).toBe(String(3600 - 37));
    expect(r.headers.get('x-datasift-request-id')).toMatch(/^[0-9a-f]{32}$/);
  });
  it('sends 204 with no body and no media type', async () => {
    const { fetch } = await setup();
    const r = await fetch(req('/v1.5/push/delete', { method: 'DELETE', headers: AUTH }));
    expect(r.status).toBe(204);
    expect(await r.text()).toBe('');
    expect(r.headers.get('content-type')).toBeNull();
    expect(r.headers.get('x-ratelimit-cost')).toBe('1');
  });
  it('sends x-datasift-* answer headers in lowercase, and rate-limit names in their exact case', async () => {
    const { engine } = await setup();
    const wire = createApiHandler(engine);
    const out = await wire({ method: 'GET', url: '/v1.5/pull', header: (n) => (n === 'authorization' ? AUTH.authorization : undefined), readBody: async () => new Uint8Array() });
    expect(out.headers['x-datasift-format']).toBe('json_new_line');
    expect(out.headers['x-datasift-cursor-next']).toBe('c'.repeat(32));
    expect(Object.keys(out.headers)).toEqual(expect.arrayContaining(['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Cost', 'X-RateLimit-Reset', 'X-RateLimit-Reset-Ttl', 'X-API-Version']));
  });
  it('answers HEAD 405 uncharged: no client sends it (docs/clients.md#methods-per-endpoint)', async () => {
    const { fetch, engine } = await setup();
    const before = await engine.store.head();
    const r = await fetch(req('/v1.5/push/get', { method: 'HEAD', headers: AUTH }));
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('GET, POST, OPTIONS');
    expect(r.headers.get('x-ratelimit-cost')).toBeNull();
    expect(await engine.store.head()).toBe(before);
  });
  it('answers 400 to repeated Authorization headers, and 401 to credentials with control characters or over-long', async () => {
    const { fetch, engine } = await setup();
    const before = await engine.store.head();
    const headers = new Headers(AUTH);
    headers.append('authorization', Object.values(AUTH)[0]!);
    expect((await fetch(req('/v1.5/push/get', { headers }))).status).toBe(400);
    for (const bad of ['a\u0001b:some-key-123', `${'u'.repeat(65)}:some-key-123`, `alice:${'k'.repeat(257)}`]) {
      expect((await fetch(req('/v1.5/push/get', { headers: { authorization: `Basic ${Buffer.from(bad).toString('base64')}` } }))).status, bad).toBe(401);
    }
    expect(await engine.store.head()).toBe(before);
  });
  it('reads order_dir and order_by in any case', async () => {
    const { fetch } = await setup();
    expect((await fetch(req('/v1.5/push/get?order_dir=DESC&order_by=CREATED_AT', { headers: AUTH }))).status).toBe(200);
  });
  it('answers OPTIONS with the methods and CORS headers, uncharged', async () => {
    const { fetch, engine } = await setup();
    const before = await engine.store.head();
    const r = await fetch(req('/v1.5/push/delete', { method: 'OPTIONS' }));
    expect(r.status).toBe(204);
    expect(r.headers.get('allow')).toBe('DELETE, POST, PUT, OPTIONS');
    expect(r.headers.get('access-control-allow-headers')).toContain('Authorization');
    expect(await engine.store.head()).toBe(before);
  });
  it('refuses: 404 unknown version or path, 405 with Allow, 401 with rate headers, each with a JSON error', async () => {
    const { fetch } = await setup();
    const cases: [Request, number][] = [
      [req('/v9.9/push/get', { headers: AUTH }), 404],
      [req('/v1.5/push/nothing', { headers: AUTH }), 404],
      [req('/v1.5/validate', { method: 'GET', headers: AUTH }), 405],
      [req('/v1.5/push/get'), 401],
    ];
    for (const [request, status] of cases) {
      const r = await fetch(request);
      expect(r.status).toBe(status);
      expect(typeof (await json(r)).error).toBe('string');
      expect(r.headers.get('x-api-version')).toMatch(/^1\.[0-5]$/);
      if (status === 405) expect(r.headers.get('allow')).toBe('POST, OPTIONS');
      if (status === 401) expect(r.headers.get('x-ratelimit-remaining')).toBe('10000');
      if (status === 401) expect(r.headers.get('x-ratelimit-cost'), 'a 401 is charged nothing').toBe('0');
      if (status === 404) expect(r.headers.get('x-ratelimit-cost')).toBeNull();
    }
  });
  it('answers 413 for a body over the limit, declared or streamed, without reading it; charged at step 7 when authenticated', async () => {
    const { fetch, engine } = await setup({ bodyLimit: 1024 });
    const before = await engine.store.head();
    const stranger = await fetch(req('/v1.5/push/get', { method: 'POST', headers: { authorization: 'alice:wrong-key-0001', 'content-type': 'application/json' }, body: 'x'.repeat(2000) }));
    expect(stranger.status).toBe(401);
    expect(await engine.store.head()).toBe(before);
    const big = JSON.stringify({ id: 'x'.repeat(2000) });
    const declared = await fetch(req('/v1.5/push/get', { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: big }));
    expect(declared.status).toBe(413);
    const stream = new ReadableStream<Uint8Array>({
      start(c) {
        for (let i = 0; i < 10; i++) c.enqueue(new TextEncoder().encode('x'.repeat(500)));
        c.close();
      },
    });
    const streamed = await fetch(new Request('http://sdp.test/v1.5/push/get', { method: 'POST', headers: AUTH, body: stream, duplex: 'half' } as RequestInit));
    expect(streamed.status).toBe(413);
    expect(streamed.headers.get('x-ratelimit-cost')).toBe('1');
    expect(streamed.headers.get('connection')).toBe('close');
    expect(await engine.store.head()).toBe(before + 2);
  });
  it('judges a call with an unreadable body (bad JSON, bad UTF-8, an unknown media type) as any other, then answers 400 or 415 at step 7, charged (docs/contract.md#judgement-order)', async () => {
    const { fetch, engine } = await setup();
    const before = await engine.store.head();
    // Credentials first: a stranger's bad body is a 401, whatever the body.
    const stranger = await fetch(req('/v1.5/push/get', { method: 'POST', headers: { authorization: 'alice:wrong-key-0001', 'content-type': 'application/json' }, body: '{"id": ' }));
    expect(stranger.status).toBe(401);
    expect(await engine.store.head()).toBe(before);
    const bad = await fetch(req('/v1.5/push/get', { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: '{"id": ' }));
    expect(bad.status).toBe(400);
    expect((await json(bad)).error).toMatch(/not valid JSON/);
    const utf = await fetch(req('/v1.5/push/get', { method: 'POST', headers: AUTH, body: new Uint8Array([0x69, 0x64, 0x3d, 0xc3, 0x28]) }));
    expect(utf.status).toBe(400);
    const xml = await fetch(req('/v1.5/push/get', { method: 'POST', headers: { ...AUTH, 'content-type': 'application/xml' }, body: '<a/>' }));
    expect(xml.status).toBe(415);
    for (const r of [bad, utf, xml]) {
      expect(r.headers.get('x-ratelimit-cost')).toBe('1');
      expect(Number(r.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0);
    }
    expect(await engine.store.head()).toBe(before + 3);
  });
  it('does not record an unreadable body under its Idempotency-Key: the retry with a body that reads executes', async () => {
    const { fetch } = await setup();
    const keyed = { ...AUTH, 'content-type': 'application/json', 'idempotency-key': 'retry-1' };
    const broken = await fetch(req('/v1.5/push/get', { method: 'POST', headers: keyed, body: '{"id": ' }));
    expect(broken.status).toBe(400);
    const fixed = await fetch(req('/v1.5/push/get', { method: 'POST', headers: keyed, body: JSON.stringify({ id: 'a' }) }));
    expect(fixed.status).toBe(200);
    expect(fixed.headers.get('idempotent-replayed')).toBeNull();
    const again = await fetch(req('/v1.5/push/get', { method: 'POST', headers: keyed, body: JSON.stringify({ id: 'a' }) }));
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });
  it('sends Deprecation and Sunset for a deprecated version', async () => {
    const { fetch } = await setup();
    const v = findVersion('1.0') as { deprecation?: { announced: string; sunset: string } };
    v.deprecation = { announced: '2026-01-01', sunset: '2026-04-01' };
    try {
      const r = await fetch(req('/v1/push/get', { headers: AUTH }));
      expect(r.headers.get('deprecation')).toBe(`@${Date.parse('2026-01-01') / 1000}`);
      expect(r.headers.get('sunset')).toBe('Wed, 01 Apr 2026 00:00:00 GMT');
      expect((await fetch(req('/v1.5/push/get', { headers: AUTH }))).headers.get('deprecation')).toBeNull();
    } finally {
      delete v.deprecation;
    }
  });
  it('tells the access log the method, path, status, time, username and cost', async () => {
    const entries: AccessEntry[] = [];
    const { fetch } = await setup({ onAccess: (e) => entries.push(e) });
    await fetch(req('/v1.5/push/get?id=1', { headers: AUTH }));
    await fetch(req('/v1.5/push/get', { headers: { authorization: 'alice:nope-nope-nope' } }));
    expect(entries).toMatchObject([
      { method: 'GET', path: '/v1.5/push/get', status: 200, username: 'alice', cost: 1 },
      { method: 'GET', path: '/v1.5/push/get', status: 401, username: null, cost: null },
    ]);
    expect(entries[0]!.ms).toBeGreaterThanOrEqual(0);
  });
});

describe('the two faces answer alike', () => {
  let server: RunningServer;
  let fetchFace: (r: Request) => Promise<Response>;
  beforeAll(async () => {
    const { engine, fetch } = await setup();
    fetchFace = fetch;
    server = await serve(engine, { port: 0 });
  });
  afterAll(() => server.close());

  it('gives the same status, headers and body over a socket as in process', async () => {
    const requests: [string, RequestInit][] = [
      ['/v1.5/push/get?id=1', { headers: AUTH }],
      ['/v1.3/push/get', { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: '{"id":"2"}' }],
      ['/v9.9/push/get', {}],
      ['/v1.5/validate', { method: 'PUT', headers: AUTH }],
      ['/v1.5/push/get', { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: '{' }],
    ];
    for (const [path, init] of requests) {
      const a = await fetch(server.url + path, init);
      const b = await fetchFace(req(path, init));
      expect(a.status).toBe(b.status);
      const strip = (r: Response) => Object.fromEntries([...r.headers].filter(([k]) => !['date', 'connection', 'keep-alive', 'content-length', 'x-datasift-request-id', 'x-ratelimit-remaining'].includes(k)));
      expect(strip(a)).toEqual(strip(b));
      const [ja, jb] = [await a.json(), await b.json()];
      expect(ja).toEqual(jb);
    }
  });
  it('answers requests Node cannot parse with a JSON error too', async () => {
    const { connect } = await import('node:net');
    const raw = (text: string) =>
      new Promise<string>((resolve) => {
        const socket = connect(server.port, '127.0.0.1', () => socket.write(text));
        let out = '';
        socket.on('data', (d) => (out += d.toString()));
        socket.on('close', () => resolve(out));
        socket.on('error', () => resolve(out));
      });
    const garbage = await raw('NOT HTTP AT ALL\r\n\r\n');
    expect(garbage).toMatch(/^HTTP\/1\.1 400 /);
    expect(JSON.parse(garbage.slice(garbage.indexOf('\r\n\r\n') + 4)).error).toMatch(/could not be read/);
    const huge = await raw(`GET /v1.5/push/get HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(huge).toMatch(/^HTTP\/1\.1 431 /);
    expect(huge).toContain('application/json');
  });
  it('answers 413 over a socket to a body over 4 MB without reading it', async () => {
    const r = await fetch(server.url + '/v1.5/push/get', { method: 'POST', headers: { ...AUTH, 'content-type': 'application/json' }, body: 'x'.repeat(5 * 1024 * 1024) });
    expect(r.status).toBe(413);
    expect((await json(r)).error).toMatch(/limit/);
  });
});

describe('encode: bodies the core has already encoded', () => {
  it('sends a string body as it is (a json_new_line pull page), and anything else as JSON', async () => {
    const { encode } = await import('./api-handler.ts');
    const page = '{"interaction":{"id":"a"}}\n{"interaction":{"id":"b"}}';
    const text = encode({ status: 200, body: page, headers: { 'X-DataSift-Format': 'json_new_line' } }, '1.5', {});
    expect(text.body).toBe(page);
    expect(text.headers['x-datasift-format']).toBe('json_new_line');
    expect(page.split('\n').map((l) => JSON.parse(l).interaction.id)).toEqual(['a', 'b']);
    const json = encode({ status: 200, body: [{ a: 1 }] }, '1.5', {});
    expect(json.body).toBe('[{"a":1}]');
  });
});

describe('what the HTTP face asks of the engine (CallAnswerer)', () => {
  it('serves through anything that answers calls: only `call`, with the endpoint the route resolved', async () => {
    const { engine } = await setup();
    const seen: string[] = [];
    // Not an Engine: an object with the one method the face calls, wrapping one.
    const tracing: CallAnswerer = {
      call: (call, endpoint) => {
        seen.push(`${endpoint.id} ${call.credentials?.username ?? '-'}`);
        return engine.call(call, endpoint);
      },
    };
    const fetch = createFetchHandler(tracing);
    const r = await fetch(req('/v1.5/push/get?id=' + 'b'.repeat(32), { headers: AUTH }));
    expect(r.status).toBe(200);
    expect(r.headers.get('x-ratelimit-cost')).toBe('1');
    expect(seen).toEqual(['push.get alice']);
  });
});
