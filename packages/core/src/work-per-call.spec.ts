import { describe, expect, it } from 'vitest';
import type { EndpointId } from './catalogue/endpoints.ts';
import type { EventStore } from './kernel/event-store.ts';
import type { StoredEvent } from './kernel/events.ts';
import { MemoryEventStore } from './kernel/memory-store.ts';
import { seededIds } from './kernel/ports.ts';
import { createEngine } from './platform.ts';
import { PushDelivery } from './push/push-delivery.ts';
import type { RecordedSet } from './recording-index/recording-index.ts';

/**
 * Bounded by design: a cheap call's work follows what it returns, not what was ever recorded. Work is
 * counted, not timed: rows of the recording index the call touches (an interaction or its time read) and
 * events it reads from the store. The same calls after 10,000 and after 100,000 ingested interactions
 * must do no more work the second time.
 */
const T0 = Date.parse('2026-03-01T12:00:00Z');
const BATCH = 2_000;

interface Meter {
  rows: number;
  events: number;
}

/** The store, counting the events every read answers while `meter.on`. */
function countingStore(meter: Meter & { on: boolean }): EventStore {
  const store = new MemoryEventStore();
  const count = (events: StoredEvent[]) => ((meter.on && (meter.events += events.length)), events);
  return Object.assign(Object.create(store) as EventStore, {
    readStream: async (...a: Parameters<EventStore['readStream']>) => count(await store.readStream(...a)),
    readAll: async (...a: Parameters<EventStore['readAll']>) => count(await store.readAll(...a)),
    readTypes: async (...a: Parameters<EventStore['readTypes']>) => count(await store.readTypes(...a)),
  });
}

/** Counts every interaction and every row time of a recorded set read while `meter.on`. */
function meterRows(set: RecordedSet, meter: Meter & { on: boolean }): void {
  const counting = <T extends object>(target: T): T =>
    new Proxy(target, {
      get(t, key) {
        if (meter.on && typeof key === 'string' && /^\d+$/.test(key)) meter.rows++;
        return Reflect.get(t, key) as unknown;
      },
    });
  Object.defineProperty(set, 'docs', { value: counting(set.docs) });
  let data = counting(set.times.data);
  Object.defineProperty(set.times, 'data', { get: () => data, set: (v: typeof data) => (data = counting(v)) });
}

/**
 * An account with a recording fed by a managed source, a pull subscription that has taken everything
 * but a last page of 10, and an s3 subscription (delivered by a connector, never run) with all of it
 * waiting; then `history` interactions over `history / BATCH` minutes, and some analysis queries.
 */
async function recorded(history: number) {
  const meter = { rows: 0, events: 0, on: false };
  const time = { now: T0 };
  const engine = createEngine({ store: countingStore(meter), clock: { now: () => time.now }, ids: seededIds(3) });
  new PushDelivery(engine).connect('s3', { deliver: async () => ({ ok: true }) });
  await engine.openAccount({ username: 'alice', api_key: 'alice-key-01', package: { index_capacity_per_month: 1e9 } });
  const call = (endpoint: EndpointId, params: Record<string, unknown> = {}, body?: string) =>
    engine.call({ version: '1.5', endpoint, credentials: { username: 'alice', apiKey: 'alice-key-01' }, params, body });
  const hash = ((await call('insight.compile', { csdl: 'fb.content contains "coffee"' })).body as { hash: string }).hash;
  const recording = ((await call('insight.start', { hash, name: 'coffee', service: 'facebook' })).body as { id: string }).id;
  const source = ((await call('source.create', { source_type: 'twitter_gnip', name: 'feed', resources: [{ parameters: { mapping: 'gnip_1' } }] })).body as { id: string }).id;
  await call('source.start', { id: source });
  const pull = ((await call('push.create', { name: 'pull', output_type: 'pull', output_params: { format: 'json_array' }, hash })).body as { id: string }).id;
  const s3 = ((await call('push.create', { name: 's3', output_type: 's3', output_params: { bucket: 'b', auth: { access_key: 'k', secret_key: 's' } }, hash })).body as { id: string }).id;
  let n = 0;
  const ingest = async (count: number) => {
    const lines = Array.from({ length: count }, () => JSON.stringify({ interaction: { id: `i${n}` }, fb: { content: `coffee ${n++}`, author: { id: `a${n % 97}` } } }));
    expect((await call('ingest', { source_id: source }, lines.join('\n'))).status).toBe(200);
  };
  for (let done = 0; done < history; done += BATCH) {
    await ingest(Math.min(BATCH, history - done));
    if (done % (10 * BATCH) === 0) await call('insight.analyze', { id: recording, parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.id', threshold: 5 } } });
    time.now += 60_000;
  }
  expect((await call('push.pull', { id: pull })).status).toBe(200);
  await ingest(10);
  const page = await call('push.pull', { id: pull });
  expect(page.body).toHaveLength(10);
  const set = engine.recordingIndex.recording(recording)!;
  meterRows(set, meter);
  /** The work of one call, the answer checked by `expectOf`. */
  const workOf = async (endpoint: EndpointId, params: Record<string, unknown>, expectOf: (body: unknown) => void): Promise<Meter> => {
    await call(endpoint, params);
    meter.on = true;
    meter.rows = meter.events = 0;
    const answer = await call(endpoint, params);
    meter.on = false;
    expect(answer.status).toBe(200);
    expectOf(answer.body);
    return { rows: meter.rows, events: meter.events };
  };
  return { call, pull, s3, cursor: page.headers!['X-DataSift-Cursor-Current']!, set, workOf, interactions: n };
}

describe('work per call does not grow with what was recorded', async () => {
  const small = await recorded(10_000);
  const large = await recorded(100_000);

  it('/pull of a page of 10 reads the page, whatever the subscription was fed before it', async () => {
    const work = await Promise.all(
      [small, large].map((w) => w.workOf('push.pull', { id: w.pull, cursor: w.cursor }, (body) => expect(body).toHaveLength(10))),
    );
    expect(work[0]!.rows).toBeGreaterThanOrEqual(10);
    expect(work[1]).toEqual(work[0]);
  });

  it('push/get of a subscription with everything waiting answers its remaining_bytes without reading what waits', async () => {
    const work = await Promise.all(
      [small, large].map((w) => {
        const waiting = Array.from({ length: w.set.size }, (_, r) => new TextEncoder().encode(JSON.stringify(w.set.docs[r])).length).reduce((a, b) => a + b, 0);
        return w.workOf('push.get', { id: w.s3 }, (body) => expect(body).toMatchObject({ remaining_bytes: waiting }));
      }),
    );
    expect(work[1]).toEqual(work[0]);
  });

  it('/account/usage over the default 30 days counts hours and queries, not interactions or charges', async () => {
    const work = await Promise.all(
      [small, large].map((w) =>
        w.workOf('account.usage', {}, (body) => {
          const lines = (body as { usage: { category: string; quantity: number }[] }).usage;
          expect(lines.filter((l) => l.category === 'realtime').reduce((s, l) => s + l.quantity, 0)).toBe(w.interactions);
          expect(lines.filter((l) => l.category === 'analysis').reduce((s, l) => s + l.quantity, 0)).toBe(w.interactions === 10_010 ? 1 : 5);
        }),
      ),
    );
    expect(work[1]).toEqual(work[0]);
  });

  it('the recordings list reports each recording\'s volume without a pass over its rows', async () => {
    const work = await Promise.all(
      [small, large].map((w) => w.workOf('insight.get', {}, (body) => expect(body).toMatchObject({ subscriptions: [{ volume: w.interactions }] }))),
    );
    expect(work[1]).toEqual(work[0]);
  });
});
