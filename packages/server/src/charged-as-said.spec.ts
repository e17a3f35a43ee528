/**
 * Answers that tell the truth about money (docs/contract.md#judgement-order): for any request, on every store, what the
 * operator sees fall is exactly the answer's X-RateLimit-Cost when the call was served (2xx) or refused
 * at step 7 (an invalid parameter, a package limit, an unreadable body), and nothing otherwise (401,
 * routing, 5xx). Prototype names, control characters, nesting, garbage bodies and bad credentials are
 * all in the generators.
 */
import { afterAll, describe, expect } from 'vitest';
import { everyStore } from '../test/every-store.ts';
import { fc, test } from '@fast-check/vitest';
import { ENDPOINTS, createEngine, type Engine } from '@sdp/core';
import { seededIds } from '@sdp/core/kernel';
import { ManualClock } from '@sdp/clock';
import { createFetchHandler, samplePath } from '@sdp/http';
import { openStore } from './open-store.ts';

const KEY = 'alice-key-0001';
const GENERAL = 1_000_000_000;
const ANALYZE = 2_000_000_000;
const RUNS = Math.max(1, Number(process.env.SDP_FUZZ_RUNS ?? 1));

const PROTOTYPE = ['__proto__', 'constructor', 'prototype', 'toString', 'valueOf', 'hasOwnProperty'];
const KEY_PARAMS = ['id', 'hash', 'service', 'source_id', 'subscription_id', 'historics_id', 'identity_id', 'source_type', 'output_type', 'order_by', 'name', 'csdl'];
const odd = fc.oneof(
  fc.constantFrom(...PROTOTYPE),
  fc.constantFrom('\u0000', 'a\u0001b', '\u007f', '', ' ', '-1', '1e999', 'true', '[]', '{}', 'a'.repeat(300)),
  fc.string({ maxLength: 16 }),
  fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 32, maxLength: 32 }),
);

const forms = ENDPOINTS.flatMap((e) => e.forms.map((f) => [f.template, e.methods] as const));
const request = fc.record({
  version: fc.constantFrom('/v1', '/v1.1', '/v1.2', '/v1.3', '/v1.4', '/v1.5'),
  form: fc.constantFrom(...forms),
  methodPick: fc.nat(),
  segment: fc.option(fc.constantFrom(...PROTOTYPE), { nil: undefined }),
  params: fc.dictionary(fc.constantFrom(...KEY_PARAMS), odd, { maxKeys: 3 }),
  inBody: fc.boolean(),
  body: fc.constantFrom<'params' | 'garbage' | 'deep' | 'not-utf8'>('params', 'params', 'params', 'garbage', 'deep', 'not-utf8'),
  auth: fc.constantFrom<Record<string, string>>(
    { authorization: `alice:${KEY}` },
    { authorization: `alice:${KEY}` },
    { authorization: `Basic ${btoa(`alice:${KEY}`)}` },
    {},
    { authorization: 'alice:wrong-key-1234' },
    { authorization: `ali\u0001ce:${KEY}` },
  ),
});

type Generated = typeof request extends fc.Arbitrary<infer T> ? T : never;

function toRequest(r: Generated): Request {
  const [template, methods] = r.form;
  const method = methods[r.methodPick % methods.length]!;
  const path = r.segment === undefined ? samplePath(template) : template.replace(/\{(\w+)(?:=([\w|]+))?\}/g, (_: string, _p: string, words?: string) => (words ? words.split('|')[0]! : r.segment!));
  const useBody = r.inBody && method !== 'GET';
  const query = useBody || Object.keys(r.params).length === 0 ? '' : `?${new URLSearchParams(r.params as Record<string, string>).toString()}`;
  let body: string | Uint8Array | undefined;
  let type: string | undefined;
  if (useBody) {
    type = 'application/json';
    if (r.body === 'params') body = JSON.stringify(r.params);
    else if (r.body === 'garbage') body = '{"a": [1, 2';
    else if (r.body === 'deep') body = '{"output_params":' + '{"a":'.repeat(80) + '1' + '}'.repeat(80) + '}';
    else body = Uint8Array.from([0x7b, 0xff, 0xfe, 0x7d]);
  }
  return new Request(`http://sdp.test${r.version}${path}${query}`, { method, headers: { ...r.auth, ...(type ? { 'content-type': type } : {}) }, ...(body !== undefined ? { body } : {}) });
}

async function left(engine: Engine): Promise<{ general: number; analyze: number }> {
  const v = await engine.accountView('alice');
  return { general: v.allowances.general.remaining, analyze: v.allowances.analyze.remaining };
}

const RUNS_ON: Record<string, number> = { memory: 120, SQLite: 60, PostgreSQL: 40 };
const stores = everyStore('charged').map(([name, url]): [string, (() => string) | undefined, number] => [name, url ? () => url : undefined, RUNS_ON[name]!]);

describe.each(stores)('what a call is charged is what its headers say, on the %s store', (_name, url, runs) => {
  let engine: Engine;
  let handle: (r: Request) => Promise<Response>;
  let close: (() => Promise<void>) | undefined;
  afterAll(async () => close?.());
  const it = url ? test : test.skip;
  it.prop([request], { numRuns: runs * RUNS })(
    'the operator view falls by X-RateLimit-Cost for a 2xx or a step-7 refusal, and by nothing otherwise',
    async (r: Generated) => {
      if (!handle) {
        const opened = await openStore(url!());
        engine = createEngine({ store: opened.store, clock: new ManualClock(Date.parse('2026-03-02T08:00:00Z')), ids: seededIds(7) });
        await engine.openAccount({ username: 'alice', api_key: KEY, package: { credits_per_hour: GENERAL, analyze_credits_per_hour: ANALYZE } });
        handle = createFetchHandler(engine, { bodyLimit: 64 * 1024 });
        close = () => opened.store.close();
      }
      const req = toRequest(r);
      const taskCreate = req.method === 'POST' && /\/task\/?(\?|$)/.test(new URL(req.url).pathname + '?');
      const before = await left(engine);
      const answer = await handle(req);
      const after = await left(engine);
      const text = await answer.text();
      const cost = answer.headers.get('x-ratelimit-cost');
      const limit = Number(answer.headers.get('x-ratelimit-limit'));
      const served = answer.status < 300 || (answer.status >= 400 && answer.status < 500 && answer.status !== 401);
      const charged = cost !== null && served && !taskCreate ? Number(cost) : 0;
      // A 401 is charged nothing, and its cost header says so.
      if (answer.status === 401 && cost !== null) expect(cost, `${req.method} ${req.url}`).toBe('0');
      const what = `${req.method} ${req.url} → ${answer.status} ${text.slice(0, 160)}`;
      expect(answer.status, what).toBeLessThan(500);
      expect({ general: before.general - after.general, analyze: before.analyze - after.analyze }, what).toEqual({
        general: limit === GENERAL ? charged : 0,
        analyze: limit === ANALYZE ? charged : 0,
      });
      // And the headers report the allowance as it stands after the call.
      if (cost !== null && answer.status !== 401) expect(Number(answer.headers.get('x-ratelimit-remaining')), what).toBe(limit === ANALYZE ? after.analyze : after.general);
    },
  );
});
