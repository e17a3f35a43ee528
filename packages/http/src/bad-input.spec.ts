import { afterAll, describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { ENDPOINTS, createEngine } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { ManualClock } from '@sdp/clock';
import { createFetchHandler } from './fetch-handler.ts';
import { route, splitUrl } from './route.ts';
import { samplePath as fillTemplate } from './sample-paths.ts';

const KEY = 'alice-key-0001';
/** `npm run fuzz` multiplies every property's runs (a longer, still bounded run for local use); CI runs one. */
const RUNS = Math.max(1, Number(process.env.SDP_FUZZ_RUNS ?? 1));
const LIMIT = 64 * 1024;

const engine = createEngine({ store: new MemoryEventStore(), clock: new ManualClock(Date.parse('2026-03-02T08:00:00Z')), ids: seededIds(3), settings: {} });
await engine.openAccount({ username: 'alice', api_key: KEY, package: { credits_per_hour: 1e12, analyze_credits_per_hour: 1e12 } });
const handle = createFetchHandler(engine, { bodyLimit: LIMIT });

const catalogueForms = ENDPOINTS.flatMap((e) => e.forms.map((f) => fillTemplate(f.template)));

const path = fc.tuple(
  fc.oneof({ weight: 5, arbitrary: fc.constantFrom('', '/v1', '/v1.0', '/v1.2', '/v1.4', '/v1.5') }, fc.constantFrom('/v9.9', '/v1.6', '/v', '/v1.5.1')),
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...catalogueForms) },
    fc.array(fc.oneof(fc.webSegment(), fc.constantFrom('%zz', '%', '..', 'insight', 'task', '%C0%AF', 'a%2Fb')), { maxLength: 5 }).map((s) => '/' + s.join('/')),
  ),
  fc.constantFrom('', '/', '//'),
  fc.oneof(fc.constant(''), fc.webQueryParameters().map((q) => '?' + q), fc.constantFrom('?id=%zz&&=&a=1&a=2', '?__proto__[x]=1&__proto__=1')),
).map(([v, p, slash, q]) => v + p + slash + q);

const auth = fc.constantFrom<Record<string, string>>(
  { authorization: `alice:${KEY}` },
  { auth: `alice:${KEY}` },
  { authorization: `Basic ${btoa(`alice:${KEY}`)}` },
  {},
  { authorization: 'alice:wrong-key-1234' },
  { authorization: 'Basic %%%' },
  { authorization: 'Bearer x' },
  { authorization: ':' },
  { authorization: 'nobody:some-key-123' },
);

const deep = (n: number) => '{"a":'.repeat(n) + '1' + '}'.repeat(n);
const body = fc.oneof(
  fc.constant<[string | Uint8Array | undefined, string | undefined]>([undefined, undefined]),
  fc.dictionary(fc.string({ maxLength: 12 }), fc.jsonValue({ maxDepth: 4 }), { maxKeys: 6 }).map((o) => [JSON.stringify(o), 'application/json'] as [string, string]),
  fc.json({ maxDepth: 3 }).map((j) => [j, 'application/json'] as [string, string]),
  fc.string({ maxLength: 60 }).map((s) => [s, 'application/json'] as [string, string]),
  fc.webQueryParameters().map((s) => [s, 'application/x-www-form-urlencoded'] as [string, string]),
  fc.string({ maxLength: 60 }).map((s) => [s, undefined] as [string, undefined]),
  fc.uint8Array({ maxLength: 40 }).map((b) => [Uint8Array.from([0x7b, 0xff, ...b]), 'application/json'] as [Uint8Array, string]),
  fc.integer({ min: 60, max: 5000 }).map((n) => [deep(n), 'application/json'] as [string, string]),
  fc.integer({ min: 60, max: 5000 }).map((n) => ['['.repeat(n), undefined] as [string, undefined]),
  fc.constant<[string, string]>(['x'.repeat(LIMIT + 1), 'application/json']),
  fc.constantFrom<[string, string]>(['<a/>', 'application/xml'], ['--b\r\n', 'multipart/form-data; boundary=b'], ['{"hash": 5, "csdl": [1], "id": {"a": null}}', 'application/json']),
);

const method = fc.oneof({ weight: 4, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE') }, fc.constantFrom('PATCH', 'HEAD', 'OPTIONS', 'FOO', 'PROPFIND'));

const seen = new Map<number, number>();

describe('bad input', () => {
  afterAll(() => {
    // The generators must reach the engine, not only the router: some answers come from past step 4.
    const charged = [...seen].filter(([s]) => s < 300).reduce((n, [, c]) => n + c, 0);
    expect(charged, JSON.stringify([...seen])).toBeGreaterThan(0);
  });
  test.prop([method, path, auth, body], { numRuns: 400 * RUNS })(
    'every request answers below 500 with a JSON error when refused, and a refusal before the charge changes nothing',
    async (m, p, headers, [payload, type]) => {
      const withBody = payload !== undefined && m !== 'GET' && m !== 'HEAD';
      const init: RequestInit = { method: m, headers: { ...headers, ...(type ? { 'content-type': type } : {}) }, ...(withBody ? { body: payload } : {}) };
      const before = await engine.store.head();
      const r = await handle(new Request('http://sdp.test' + p, init));
      const after = await engine.store.head();

      seen.set(r.status, (seen.get(r.status) ?? 0) + 1);
      if (r.status >= 500) {
        // Only a catalogue endpoint nobody has built yet may answer 5xx (501, nothing charged).
        const message = await r.clone().text();
        expect(r.status, message).toBe(501);
        const routed = route(m, splitUrl(p).path, 'insight');
        expect(routed.kind === 'endpoint' && !engine.handles(routed.endpoint.id), message).toBe(true);
        expect(after).toBe(before);
      }
      expect(r.headers.get('x-api-version')).toMatch(/^1\.[0-5]$/);
      const text = await r.text();
      if (r.status === 204 || m === 'HEAD') expect(text).toBe('');
      else {
        expect(r.headers.get('content-type')).toBe('application/json; charset=utf-8');
        const json = JSON.parse(text);
        if (r.status >= 400) expect(typeof json.error).toBe('string');
      }
      const cost = r.headers.get('x-ratelimit-cost');
      const remaining = r.headers.get('x-ratelimit-remaining');
      const refusedBeforeCharge = cost === null || r.status === 401 || r.status === 405 || (r.status >= 400 && Number(cost) > Number(remaining)) || r.status >= 500;
      if (r.status >= 400 && refusedBeforeCharge) expect(after).toBe(before);
    },
  );
});

// ---- Hostile input (issue 12): every refusal below 500, and nothing changed by it ----

const PROTOTYPE = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty'];
const KEY_PARAMS = ['id', 'hash', 'service', 'source_id', 'subscription_id', 'historics_id', 'identity_id', 'playback_id', 'source_type', 'output_type', 'order_by'];

/** A catalogue path with a prototype name in one of its parameter segments (or none), and a method it takes. */
const endpointWithPrototypeIds = fc
  .tuple(fc.constantFrom(...ENDPOINTS.flatMap((e) => e.forms.map((f) => [f.template, e.methods] as const))), fc.constantFrom(...PROTOTYPE), fc.nat())
  .map(([[template, methods], name, k]) => ({
    path: '/v1.5' + template.replace(/\{(\w+)(?:=([\w|]+))?\}/g, (_, p: string, words?: string) => (words ? words.split('|')[0]! : name)),
    method: methods[k % methods.length]!,
  }));

async function unchanged(request: Request): Promise<Response> {
  const before = await engine.store.head();
  const r = await handle(request);
  expect(r.status, `${request.method} ${request.url}: ${await r.clone().text()}`).toBeLessThan(500);
  expect(await engine.store.head()).toBe(before);
  return r;
}

/** What the operator sees left of the allowance an endpoint draws from (the account never runs out). */
async function remainingFor(allowance: string): Promise<number> {
  const view = await engine.accountView('alice');
  return allowance === 'analyze' ? view.allowances.analyze.remaining : view.allowances.general.remaining;
}

describe('hostile input', () => {
  test.prop([endpointWithPrototypeIds, fc.constantFrom(...KEY_PARAMS), fc.constantFrom(...PROTOTYPE), fc.boolean()], { numRuns: 150 * RUNS })(
    'a prototype name in any id, hash, service, source or sort position answers 4xx, charged what its headers say, and changes nothing else',
    async ({ path, method }, param, name, inBody) => {
      const useBody = inBody && method !== 'GET';
      const query = useBody ? '' : `?${param}=${encodeURIComponent(name)}`;
      const body = useBody ? JSON.stringify({ [param]: name }) : undefined;
      const routed = route(method, splitUrl(path).path, 'insight');
      const allowance = routed.kind === 'endpoint' ? routed.endpoint.allowance : 'none';
      const head = await engine.store.head();
      const before = await remainingFor(allowance);
      const r = await handle(new Request(`http://sdp.test${path}${query}`, { method, headers: { authorization: `alice:${KEY}`, ...(body ? { 'content-type': 'application/json' } : {}) }, ...(body ? { body } : {}) }));
      expect(r.status, `${method} ${path}: ${await r.clone().text()}`).toBeLessThan(500);
      expect([400, 404, 405]).toContain(r.status);
      // A 400 at step 7 is charged (docs/contract.md#judgement-order) and the headers say what was; a route's 404 or 405 is
      // not; task creation reports its cost and draws no allowance (docs/contract.md#hourly-allowances).
      const cost = r.headers.get('x-ratelimit-cost');
      const fell = before - (await remainingFor(allowance));
      expect(fell).toBe(r.status === 400 && cost !== null && allowance !== 'task-slots' ? Number(cost) : 0);
      // Nothing but the charge was written.
      const written = await engine.store.readAll(head);
      expect(written.map((e) => e.type).filter((t) => t !== 'CreditsCharged')).toEqual([]);
    },
  );

  const control = fc.constantFrom('\u0000', '\u0001', '\u001f', '\u007f', '\u0085', '\n');
  test.prop([fc.constantFrom(...catalogueForms), control, fc.constantFrom('user', 'key'), fc.boolean()], { numRuns: 60 * RUNS })(
    'control characters or over-long parts in credentials answer 401 before any store is asked',
    async (p, c, where, long) => {
      const user = where === 'user' ? (long ? 'a'.repeat(65) : `ali${c}ce`) : 'alice';
      const key = where === 'key' ? (long ? 'k'.repeat(257) : `${KEY}${c}`) : KEY;
      const r = await unchanged(new Request(`http://sdp.test/v1.5${p}`, { method: 'POST', headers: { authorization: `Basic ${Buffer.from(`${user}:${key}`).toString('base64')}` } }));
      expect([401, 404, 405]).toContain(r.status);
    },
  );

  const jsonEndpoint = fc.constantFrom('/v1.5/push/create', '/v1.5/push/update', '/v1.5/push/validate', '/v1.5/source/update', '/v1.5/source/create', '/v1.5/pull');
  test.prop([jsonEndpoint, fc.constantFrom('output_params', 'parameters', 'resources', 'auth', 'filter'), fc.integer({ min: 65, max: 3000 }), fc.constantFrom('text', 'flattened', 'object')], { numRuns: 40 * RUNS })(
    'JSON nested past the limit inside a parameter, as text, flattened keys or a body value, answers 4xx',
    async (endpoint, param, depth, form) => {
      let init: RequestInit;
      if (form === 'flattened') init = { method: 'POST', body: new URLSearchParams({ [`${param}.${Array.from({ length: depth }, () => 'a').join('.')}`]: '1', [`${param}.b`]: '2' }).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } };
      else if (form === 'text') init = { method: 'POST', body: JSON.stringify({ [param]: deep(depth) }), headers: { 'content-type': 'application/json' } };
      else init = { method: 'POST', body: `{"${param}":${deep(Math.min(depth, 60))}}`, headers: { 'content-type': 'application/json' } };
      (init.headers as Record<string, string>).authorization = `alice:${KEY}`;
      const r = await handle(new Request(`http://sdp.test${endpoint}`, init));
      expect(r.status, await r.clone().text()).toBeLessThan(500);
    },
  );

  test.prop([fc.constantFrom('/v1.05', '/v01.5', '/v001.0005', '/v1.50', '/v01', '/v1.5.0', '/v00.1'), fc.constantFrom(...catalogueForms)], { numRuns: 40 * RUNS })(
    'non-canonical version prefixes answer 404 uncharged',
    async (v, p) => {
      const r = await unchanged(new Request(`http://sdp.test${v}${p}`, { method: 'POST', headers: { authorization: `alice:${KEY}` } }));
      expect(r.status).toBe(404);
      expect(r.headers.get('x-ratelimit-cost')).toBeNull();
    },
  );

  test.prop([fc.constantFrom(...catalogueForms), fc.constantFrom(`alice:${KEY}`, `Basic ${btoa(`alice:${KEY}`)}`, 'nobody:some-key-123')], { numRuns: 40 * RUNS })(
    'a repeated Authorization header answers 400 (or the route\'s 404/405) uncharged',
    async (p, second) => {
      const headers = new Headers({ authorization: `alice:${KEY}` });
      headers.append('authorization', second);
      const r = await unchanged(new Request(`http://sdp.test/v1.5${p}`, { method: 'POST', headers }));
      expect([400, 404, 405]).toContain(r.status);
    },
  );
});
