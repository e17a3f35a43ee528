import type { EndpointId } from '../catalogue/endpoints.ts';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { VersionId } from '../catalogue/versions.ts';
import { fold } from '../kernel/decider.ts';
import { Engine } from '../pipeline/engine.ts';
import { DomainError } from '../calls/errors.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import { filterHandlers } from '../filters/handlers.ts';
import { recordingHandlers } from '../recordings/handlers.ts';
import { sourceHandlers } from './handlers.ts';
import { MAX_INTERACTION_CHARS, parseIngestionBody } from './ingestion-body.ts';
import { INGESTION_SLICE_CHARS, slices } from './recorded.ts';
import type { IngestionLimits } from './ingestion-limit.ts';
import { sourcesDecider, type SourceEvent } from './managed-source.ts';

const T0 = Date.parse('2026-03-01T12:00:10Z');

describe('the ingestion body (docs/clients.md#ingestion)', () => {
  it('reads objects one a line, with \\r\\n, and concatenated with no separator', () => {
    expect(parseIngestionBody('{"a":1}\n{"b":2}\n').interactions).toEqual([{ a: 1 }, { b: 2 }]);
    expect(parseIngestionBody('{"a":1}\r\n{"b":"x\\"}{"}\r\n').interactions).toEqual([{ a: 1 }, { b: 'x"}{' }]);
    expect(parseIngestionBody('{"a":{"n":[1,2]}}{"b":2}{"c":3}').interactions).toEqual([{ a: { n: [1, 2] } }, { b: 2 }, { c: 3 }]);
    expect(parseIngestionBody('{"é":"ü"}').bytes).toBe(11);
  });
  it('names the line of a malformed message', () => {
    expect(() => parseIngestionBody('{"a":1}\n{"b":\n')).toThrow(/Line 2: the JSON object is not closed/);
    expect(() => parseIngestionBody('{"a":1}\n\n{b:2}\n')).toThrow(/Line 3: not valid JSON/);
    expect(() => parseIngestionBody('{"a":1}\n[1,2]')).toThrow(/Line 2: an interaction must be a JSON object/);
    expect(() => parseIngestionBody('{"a":1}\nhello')).toThrow(/Line 2/);
    expect(() => parseIngestionBody('  \n ')).toThrow(/no interactions/);
  });
  it('an interaction over MAX_INTERACTION_CHARS refuses the request 413 naming its line; one at the bound is read', () => {
    const at = (n: number) => JSON.stringify({ content: 'x'.repeat(n - '{"content":""}'.length) });
    expect(parseIngestionBody(`{"a":1}\n${at(MAX_INTERACTION_CHARS)}`).interactions).toHaveLength(2);
    let refused: unknown;
    try {
      parseIngestionBody(`{"a":1}\n${at(MAX_INTERACTION_CHARS + 1)}`);
    } catch (error) {
      refused = error;
    }
    expect(refused).toMatchObject({ status: 413, message: expect.stringMatching(/Line 2: an interaction is at most 65536 characters/) });
  });
  test.prop([fc.array(fc.dictionary(fc.string(), fc.jsonValue()), { minLength: 1, maxLength: 20 }), fc.constantFrom('\n', '\r\n', '')])(
    'every encoding a client uses reads back as the objects it sent, with their byte count',
    (objects, separator) => {
      const messages = objects.map((o) => JSON.stringify(o));
      const batch = parseIngestionBody(messages.join(separator));
      expect(batch.interactions).toEqual(objects.map((o) => JSON.parse(JSON.stringify(o))));
      expect(batch.bytes).toBe(messages.reduce((n, m) => n + Buffer.byteLength(m), 0));
    },
  );
});

describe('the per-minute ingestion limit as a property', () => {
  const ID = 'a'.repeat(32);
  const base: SourceEvent[] = [
    { type: 'ManagedSourceCreated', data: { id: ID, source_type: 'twitter_gnip', name: 'n', parameters: {}, resources: [], auth: [], at: T0 } },
    { type: 'ManagedSourceStarted', data: { id: ID, at: T0 } },
  ];
  test.prop([
    fc.record({ requestsPerMinute: fc.integer({ min: 1, max: 8 }), bytesPerMinute: fc.integer({ min: 1, max: 5000 }) }),
    fc.array(fc.record({ gap: fc.integer({ min: 0, max: 25_000 }), bytes: fc.integer({ min: 1, max: 2000 }) }), { maxLength: 60 }),
  ])('what is admitted in a minute never exceeds the limit, and a refused request keeps nothing', (limits, requests) => {
    let state = fold(sourcesDecider, base);
    const log = [...base];
    let at = T0;
    const perMinute = new Map<number, { requests: number; bytes: number }>();
    for (const r of requests) {
      at += r.gap;
      try {
        const events = sourcesDecider.decide({ type: 'Ingest', id: ID, at, bytes: r.bytes, accepted: 1, limits }, state);
        for (const e of events) state = sourcesDecider.evolve(state, e);
        log.push(...events);
        const m = Math.floor(at / 60_000);
        const w = perMinute.get(m) ?? { requests: 0, bytes: 0 };
        perMinute.set(m, { requests: w.requests + 1, bytes: w.bytes + r.bytes });
      } catch (error) {
        if (!(error instanceof DomainError)) throw error;
        expect(error.status).toBe(413);
        // Refused only when the request would not fit in what its minute has left.
        const w = perMinute.get(Math.floor(at / 60_000)) ?? { requests: 0, bytes: 0 };
        expect(w.requests + 1 > limits.requestsPerMinute || w.bytes + r.bytes > limits.bytesPerMinute).toBe(true);
      }
    }
    for (const w of perMinute.values()) {
      expect(w.requests).toBeLessThanOrEqual(limits.requestsPerMinute);
      expect(w.bytes).toBeLessThanOrEqual(limits.bytesPerMinute);
    }
    expect(fold(sourcesDecider, log)).toEqual(state);
  });
});

async function platform(limits?: IngestionLimits, yieldTurn?: () => Promise<void>) {
  const time = { now: T0 };
  const store = new MemoryEventStore();
  const engine = new Engine({ store, clock: { now: () => time.now }, ids: seededIds(5), handlers: { ...filterHandlers, ...recordingHandlers, ...sourceHandlers(limits) }, yieldTurn });
  await engine.openAccount({ username: 'alice', api_key: 'alice-key-01' });
  await engine.openAccount({ username: 'bob', api_key: 'bob-key-0001' });
  const call = (endpoint: EndpointId, params: Record<string, unknown> = {}, body?: string, who = 'alice', version: VersionId = '1.5') =>
    engine.call({ version, endpoint, credentials: { username: who, apiKey: `${who}-key-${who === 'bob' ? '0001' : '01'}` }, params, body });
  const created = await call('source.create', { source_type: 'twitter_gnip', name: 'gnip', resources: JSON.stringify([{ parameters: { mapping: 'gnip_1' } }]) });
  const id = (created.body as { id: string }).id;
  return { engine, store, time, call, id };
}

const line = (n: number) => JSON.stringify({ interaction: { id: `i${n}`, content: `coffee ${n}` }, fb: { content: `coffee ${n}` } });

describe('ingestion through engine.call', () => {
  it('answers 200 {accepted, total_message_bytes} with the ingestion headers, and the running recording keeps what matches', async () => {
    const p = await platform();
    const hash = ((await p.call('insight.compile', { csdl: 'fb.content contains "coffee"' })).body as { hash: string }).hash;
    const rec = (await p.call('insight.start', { hash, name: 'c', service: 'facebook' })).body as { id: string };
    await p.call('source.start', { id: p.id });
    const body = [line(1), line(2), JSON.stringify({ fb: { content: 'tea' } })].join('\r\n');
    const a = await p.call('ingest', { source_id: p.id }, body);
    expect(a).toMatchObject({ status: 200, body: { accepted: 3, total_message_bytes: Buffer.byteLength(body) - 4 } });
    expect(a.headers).toMatchObject({
      'X-Ingestion-Request-Ratelimit-Limit': '10000',
      'X-Ingestion-Request-Ratelimit-Remaining': '9999',
      'X-Ingestion-Request-Ratelimit-Reset': String(Math.floor(T0 / 60_000) * 60 + 60),
      'X-Ingestion-Request-Ratelimit-Reset-Ttl': '50',
      'X-Ingestion-Data-Ratelimit-Remaining': String(300_000_000 - (Buffer.byteLength(body) - 4)),
    });
    const got = await p.call('insight.get', { id: rec.id });
    expect(got.body).toMatchObject({ volume: 2 });
  });

  it('matches a large batch in slices with a turn of the event loop between, and keeps all of it', async () => {
    let turns = 0;
    const p = await platform(undefined, async () => {
      turns++;
    });
    const hash = ((await p.call('insight.compile', { csdl: 'fb.content regex_partial "^(c|c)*offee"' })).body as { hash: string }).hash;
    const rec = (await p.call('insight.start', { hash, name: 'c', service: 'facebook' })).body as { id: string };
    await p.call('source.start', { id: p.id });
    const n = 1000;
    const a = await p.call('ingest', { source_id: p.id }, Array.from({ length: n }, (_, k) => line(k)).join('\n'));
    expect(a).toMatchObject({ status: 200, body: { accepted: n } });
    expect(turns).toBe(Math.ceil(n / 256));
    expect((await p.call('insight.get', { id: rec.id })).body).toMatchObject({ volume: n });
  });

  test.prop([fc.array(fc.nat({ max: 40_000 }), { maxLength: 1200 })])('slices keep every item once, in order, each within the bounds', (sizes) => {
    const parts = [...slices(sizes, sizes)];
    expect(parts.flat()).toEqual(sizes);
    for (const part of parts.slice(0, -1)) {
      expect(part.length <= 256).toBe(true);
      // A slice closes on the item that reached a bound.
      expect(part.length === 256 || part.reduce((x, y) => x + y, 0) >= INGESTION_SLICE_CHARS).toBe(true);
      expect(part.slice(0, -1).reduce((x, y) => x + y, 0) < INGESTION_SLICE_CHARS).toBe(true);
    }
  });

  it('answers 404 Unknown user source for an unknown, deleted or another account\'s source', async () => {
    const p = await platform();
    expect(await p.call('ingest', { source_id: 'f'.repeat(32) }, line(1))).toMatchObject({ status: 404, body: { error: 'Unknown user source' } });
    await p.call('source.start', { id: p.id });
    expect((await p.call('ingest', { source_id: p.id }, line(1), 'bob')).status).toBe(404);
    await p.call('source.delete', { id: p.id });
    expect((await p.call('ingest', { source_id: p.id }, line(1))).status).toBe(404);
  });

  it('answers 409 for a stopped source, and 400 naming the line for a malformed message, keeping nothing', async () => {
    const p = await platform();
    expect((await p.call('ingest', { source_id: p.id }, line(1))).status).toBe(409);
    await p.call('source.start', { id: p.id });
    const head = await p.store.head();
    const bad = await p.call('ingest', { source_id: p.id }, `${line(1)}\n${line(2)}\n{"broken":\n`);
    expect(bad).toMatchObject({ status: 400, body: { error: expect.stringMatching(/^Line 3/) } });
    expect(await p.store.head()).toBe(head);
  });

  it('answers 413 past the per-minute limit, keeps nothing of that request, and admits again the next minute', async () => {
    const p = await platform({ requestsPerMinute: 2, bytesPerMinute: 10_000 });
    await p.call('source.start', { id: p.id });
    expect((await p.call('ingest', { source_id: p.id }, line(1))).status).toBe(200);
    expect((await p.call('ingest', { source_id: p.id }, line(2))).headers!['X-Ingestion-Request-Ratelimit-Remaining']).toBe('0');
    const head = await p.store.head();
    const refused = await p.call('ingest', { source_id: p.id }, line(3));
    expect(refused).toMatchObject({ status: 413, body: { error: expect.stringMatching(/2 requests a minute/) } });
    expect(await p.store.head()).toBe(head);
    p.time.now += 60_000;
    expect((await p.call('ingest', { source_id: p.id }, line(3))).status).toBe(200);
    const big = await p.call('ingest', { source_id: p.id }, JSON.stringify({ x: 'y'.repeat(10_000) }));
    expect(big.status).toBe(413);
  });
});
