import type { EndpointId } from '../catalogue/endpoints.ts';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import type { VersionId } from '../catalogue/versions.ts';
import { Engine } from '../pipeline/engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import { filterHandlers } from '../filters/handlers.ts';
import { recordingHandlers } from '../recordings/handlers.ts';
import { sourceHandlers } from '../sources/handlers.ts';
import { decodeCursor, encodeCursor, pageFrom } from './pull-page.ts';
import { pushHandlers } from './handlers.ts';
import { FINISHING_MS } from './push-subscription.ts';

const T0 = Date.parse('2026-03-01T12:00:00Z');

/** The platform's real parts: filters, recordings, managed sources with ingestion, push. */
async function platform(format = 'json_array') {
  const time = { now: T0 };
  const engine = new Engine({
    store: new MemoryEventStore(),
    clock: { now: () => time.now },
    ids: seededIds(11),
    handlers: { ...filterHandlers, ...recordingHandlers, ...pushHandlers(), ...sourceHandlers() },
  });
  await engine.openAccount({ username: 'alice', api_key: 'alice-key-01' });
  const call = (endpoint: EndpointId, params: Record<string, unknown> = {}, body?: string, version: VersionId = '1.5') =>
    engine.call({ version, endpoint, credentials: { username: 'alice', apiKey: 'alice-key-01' }, params, body });
  const hash = ((await call('insight.compile', { csdl: 'fb.content contains "coffee"' })).body as { hash: string }).hash;
  expect((await call('insight.start', { hash, name: 'coffee', service: 'facebook' })).status).toBe(200);
  const source = (await call('source.create', { source_type: 'twitter_gnip', name: 'feed', resources: [{ parameters: { mapping: 'gnip_1' } }] })).body as { id: string };
  expect((await call('source.start', { id: source.id })).status).toBe(200);
  const sub = await call('push.create', { name: 'pull it', output_type: 'pull', output_params: { format }, hash });
  expect(sub.status).toBe(200);
  const subId = (sub.body as { id: string }).id;
  let n = 0;
  /** Ingests `count` matching interactions (and one that no recording matches); answers their ids. */
  const ingest = async (count: number): Promise<string[]> => {
    const ids: string[] = [];
    const lines: string[] = [];
    for (let k = 0; k < count; k++) {
      const id = `i${n++}`;
      ids.push(id);
      lines.push(JSON.stringify({ interaction: { id, content: `coffee ${id}` }, fb: { content: `coffee number ${id}`, author: { id: `a${n % 5}` } } }));
    }
    lines.push(JSON.stringify({ interaction: { id: `tea${n}` }, fb: { content: 'tea only' } }));
    const a = await call('ingest', { source_id: source.id }, lines.join('\n'));
    expect(a.status).toBe(200);
    return ids;
  };
  return { engine, time, call, hash, subId, source: source.id, ingest };
}

const idsOf = (body: unknown): string[] => (body as { interaction: { id: string } }[]).map((i) => i.interaction.id);

describe('pull delivery (docs/clients.md#core-calls-and-pull)', () => {
  it('answers 204 with the format and current cursor when nothing waits, then the ingested interactions', async () => {
    const p = await platform('json_new_line');
    const empty = await p.call('push.pull', { id: p.subId });
    expect(empty.status).toBe(204);
    expect(empty.headers).toMatchObject({ 'X-DataSift-Format': 'json_new_line', 'X-DataSift-Cursor-Current': expect.stringMatching(/^[0-9a-f]{32}$/) });
    expect(empty.rate?.cost).toBe(0);
    await p.ingest(3);
    const a = await p.call('push.pull', { id: p.subId });
    expect(a.status).toBe(200);
    const lines = (a.body as string).split('\n').map((l) => JSON.parse(l) as { interaction: { id: string } });
    expect(lines.map((l) => l.interaction.id)).toEqual(['i0', 'i1', 'i2']);
    expect(a.headers!['X-DataSift-Cursor-Next']).toMatch(/^[0-9a-f]{32}$/);
    expect(a.headers!['X-DataSift-Cursor-Next']).not.toBe(a.headers!['X-DataSift-Cursor-Current']);
    expect((await p.call('push.pull', { id: p.subId })).status).toBe(204);
    const sub = await p.call('push.get', { id: p.subId });
    expect(sub.body).toMatchObject({ interaction_count: 3, last_request: Math.floor(T0 / 1000) });
  });

  it('json_meta wraps a page with its subscription, count and delivery time', async () => {
    const p = await platform('json_meta');
    await p.ingest(2);
    const a = await p.call('push.pull', { id: p.subId });
    expect(a.body).toMatchObject({ id: p.subId, hash: p.hash, hash_type: 'stream', count: 2, delivered_at: 'Sun, 01 Mar 2026 12:00:00 +0000' });
    expect(a.headers!['X-DataSift-Format']).toBe('json_meta');
  });

  it('a paused subscription holds its interactions until resumed; a finished one still gives what it had', async () => {
    const p = await platform();
    await p.ingest(2);
    await p.call('push.pause', { id: p.subId });
    expect((await p.call('push.pull', { id: p.subId })).status).toBe(204);
    await p.call('push.resume', { id: p.subId });
    p.time.now += 1000;
    await p.call('push.stop', { id: p.subId });
    p.time.now += FINISHING_MS;
    await p.ingest(1);
    const a = await p.call('push.pull', { id: p.subId });
    expect(idsOf(a.body)).toEqual(['i0', 'i1']);
  });

  it('refuses a cursor of another subscription, a cursor ahead of delivery, and a pull of a push to s3', async () => {
    const p = await platform();
    expect((await p.call('push.pull', { id: p.subId, cursor: encodeCursor('f'.repeat(32), 0) })).status).toBe(400);
    expect((await p.call('push.pull', { id: p.subId, cursor: encodeCursor(p.subId, 5) })).status).toBe(400);
    const s3 = await p.call('push.create', { name: 's3', output_type: 's3', output_params: { bucket: 'b', auth: { access_key: 'k', secret_key: 's' } }, hash: p.hash });
    const refused = await p.call('push.pull', { id: (s3.body as { id: string }).id });
    expect(refused.status).toBe(400);
    expect((await p.call('push.pull', { id: '0'.repeat(32) })).status).toBe(404);
  });

  it('a cursor is 32 hex and reads back as the position it names', () => {
    fc.assert(fc.property(fc.string({ unit: fc.constantFrom(...'0123456789abcdef'), minLength: 32, maxLength: 32 }), fc.nat({ max: 2 ** 40 }), (id, pos) => {
      const c = encodeCursor(id, pos);
      expect(c).toMatch(/^[0-9a-f]{32}$/);
      expect(decodeCursor(id, c)).toBe(pos);
    }));
  });
});

describe('pull cursors as a property', () => {
  const step = fc.oneof(
    fc.record({ kind: fc.constant('ingest' as const), count: fc.integer({ min: 1, max: 6 }) }),
    fc.record({ kind: fc.constant('pull' as const), size: fc.integer({ min: 1, max: 600 }), withCursor: fc.boolean(), replay: fc.boolean() }),
    fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 5000 }) }),
  );

  test.prop([fc.array(step, { maxLength: 25 })], { numRuns: 25 })(
    'paging through with cursors delivers every interaction exactly once, in order, and the same cursor gives the same page',
    async (steps) => {
      const p = await platform();
      const ingested: string[] = [];
      const delivered: string[] = [];
      const pages = new Map<string, unknown>();
      let next: string | undefined;
      const pull = async (size: number, withCursor: boolean) => {
        const a = await p.call('push.pull', { id: p.subId, size, ...(withCursor && next ? { cursor: next } : {}) });
        expect([200, 204]).toContain(a.status);
        const current = a.headers!['X-DataSift-Cursor-Current']!;
        if (next) expect(current).toBe(next);
        if (a.status === 200) {
          pages.set(current, a.body);
          delivered.push(...idsOf(a.body));
          next = a.headers!['X-DataSift-Cursor-Next'];
        } else next = current;
        return a;
      };
      for (const s of steps) {
        if (s.kind === 'ingest') ingested.push(...(await p.ingest(s.count)));
        else if (s.kind === 'advance') p.time.now += s.ms;
        else if (s.replay && pages.size > 0) {
          const [cursor, body] = [...pages][pages.size - 1]!;
          const again = await p.call('push.pull', { id: p.subId, cursor, size: s.size });
          expect(again.status).toBe(200);
          expect(again.body).toEqual(body);
        } else await pull(s.size, s.withCursor);
      }
      for (let guard = 0; guard < 200; guard++) if ((await pull(1 + (guard % 300), guard % 2 === 0)).status === 204) break;
      expect(delivered).toEqual(ingested);
    },
  );

  test.prop([fc.array(fc.jsonValue(), { maxLength: 30 }), fc.integer({ min: 1, max: 400 })])(
    'a page always holds at least one waiting interaction and never more bytes than asked for beyond its first',
    (feed, size) => {
      let from = 0;
      const seen: unknown[] = [];
      for (;;) {
        const page = pageFrom(feed, from, size);
        if (!page) break;
        expect(page.to).toBeGreaterThan(from);
        if (page.to - from > 1) expect(page.bytes).toBeLessThanOrEqual(size);
        seen.push(...feed.slice(from, page.to));
        from = page.to;
      }
      expect(seen).toEqual(feed);
    },
  );
});

describe('pull: what a free call can make the server keep', () => {
  it('re-reading positions already delivered (cursors whose pages are not kept) is served and writes nothing', async () => {
    const p = await platform();
    const ids = await p.ingest(6);
    const first = await p.call('push.pull', { id: p.subId });
    expect(idsOf(first.body)).toEqual(ids);
    const head = await p.engine.store.head();
    for (let k = 1; k < 6; k++) {
      const again = await p.call('push.pull', { id: p.subId, cursor: encodeCursor(p.subId, k) });
      expect(again.status).toBe(200);
      expect(idsOf(again.body)).toEqual(ids.slice(k));
    }
    // Only the calls' (free) charges are written: no page marks for positions already delivered.
    const written = await p.engine.store.readAll(head);
    expect(written.filter((e) => e.type === 'PullPageServed')).toEqual([]);
  });
});
