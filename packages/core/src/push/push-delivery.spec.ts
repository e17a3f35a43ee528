import { describe, expect, it } from 'vitest';
import type { EndpointId } from '../catalogue/endpoints.ts';
import { Engine } from '../pipeline/engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import { filterHandlers } from '../filters/handlers.ts';
import { recordingHandlers } from '../recordings/handlers.ts';
import { sourceHandlers } from '../sources/handlers.ts';
import type { DeliveryOutcome, PushBatch, PushConnector } from './connector.ts';
import { PushDelivery } from './push-delivery.ts';

const T0 = Date.parse('2026-03-01T12:00:00Z');

/** An embedder's connector for another output type: keeps what it is given, fails while told to. */
function bucketConnector(): PushConnector & { kept: PushBatch[]; failing: boolean } {
  const c = {
    kept: [] as PushBatch[],
    failing: false,
    async deliver(batch: PushBatch): Promise<DeliveryOutcome> {
      if (c.failing) return { ok: false, message: 'The bucket refused the object' };
      c.kept.push(batch);
      return { ok: true };
    },
  };
  return c;
}

async function platform() {
  const time = { now: T0 };
  const engine = new Engine({ store: new MemoryEventStore(), clock: { now: () => time.now }, ids: seededIds(5), handlers: { ...filterHandlers, ...recordingHandlers, ...sourceHandlers() } });
  const bucket = bucketConnector();
  const delivery = new PushDelivery(engine).connect('s3', bucket);
  await engine.openAccount({ username: 'alice', api_key: 'alice-key-01' });
  const call = (endpoint: EndpointId, params: Record<string, unknown> = {}, body?: string) =>
    engine.call({ version: '1.5', endpoint, credentials: { username: 'alice', apiKey: 'alice-key-01' }, params, body });
  const hash = ((await call('insight.compile', { csdl: 'fb.content contains "coffee"' })).body as { hash: string }).hash;
  await call('insight.start', { hash, name: 'coffee', service: 'facebook' });
  const source = (await call('source.create', { source_type: 'twitter_gnip', name: 'feed', resources: [{ parameters: { mapping: 'gnip_1' } }] })).body as { id: string };
  await call('source.start', { id: source.id });
  const sub = await call('push.create', {
    name: 'to my bucket',
    output_type: 's3',
    output_params: { bucket: 'b', auth: { access_key: 'k', secret_key: 's' }, format: 'json_array', max_size: 150, delivery_frequency: 30 },
    hash,
  });
  expect(sub.status).toBe(200);
  const id = (sub.body as { id: string }).id;
  const ingest = (ids: string[]) => call('ingest', { source_id: source.id }, ids.map((i) => JSON.stringify({ interaction: { id: i }, fb: { content: `coffee ${i}` } })).join('\n'));
  /** Runs the subscription's due steps up to `until`, as a keeper would. */
  const runUntil = async (until: number) => {
    let next = await delivery.deliverDue('alice', id);
    while (next !== null && next <= until) {
      time.now = Math.max(time.now, next);
      next = await delivery.deliverDue('alice', id);
    }
    time.now = until;
  };
  return { time, call, id, bucket, ingest, runUntil, delivery };
}

describe('PushDelivery with a connector an embedder registered', () => {
  it('gets the same batching, interval, retries under one delivery id, and log as http', async () => {
    const p = await platform();
    await p.ingest(['a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
    p.bucket.failing = true;
    await p.runUntil(T0 + 45_000);
    expect(p.bucket.kept).toEqual([]);
    const view = (await p.call('push.get', { id: p.id })).body as Record<string, unknown>;
    expect(view).toMatchObject({ status: 'active', interaction_count: 0 });
    expect(view['remaining_bytes']).toBeGreaterThan(0);
    p.bucket.failing = false;
    await p.runUntil(T0 + 600_000);
    const ids = p.bucket.kept.map((b) => b.interactions.map((i) => (i as { interaction: { id: string } }).interaction.id));
    expect(ids.flat()).toEqual(['a1', 'a2', 'a3', 'a4', 'a5', 'a6']);
    expect(ids.length).toBeGreaterThan(1);
    for (const b of p.bucket.kept) expect(JSON.stringify(b.interactions).length).toBeLessThanOrEqual(150);
    for (let i = 1; i < p.bucket.kept.length; i++) expect(p.bucket.kept[i]!.openedAt - p.bucket.kept[i - 1]!.openedAt).toBeGreaterThanOrEqual(30_000);
    expect(new Set(p.bucket.kept.map((b) => b.deliveryId)).size).toBe(p.bucket.kept.length);
    const log = ((await p.call('push.log', { id: p.id })).body as { log_entries: { success: boolean; message: string }[] }).log_entries;
    expect(log.filter((e) => e.message === 'The bucket refused the object').length).toBeGreaterThanOrEqual(2);
    expect(log.filter((e) => e.message === 'Successfully delivered after delivery failure(s)')).toHaveLength(1);
    expect((await p.call('push.get', { id: p.id })).body).toMatchObject({ remaining_bytes: 0, interaction_count: 6, lost_data: false });
  });

  it('does not ask to be stepped while nothing waits, and delivers what arrives once asked again', async () => {
    const p = await platform();
    expect(await p.delivery.deliverDue('alice', p.id)).toBeNull();
    p.time.now += 3_600_000;
    expect(await p.delivery.deliverDue('alice', p.id)).toBeNull();
    await p.ingest(['b1']);
    const next = await p.delivery.deliverDue('alice', p.id);
    expect(p.bucket.kept.map((b) => b.interactions.length)).toEqual([1]);
    // One look after a batch (more may have come while it was on its way), then nothing until woken.
    expect(next).toBe(p.time.now + 30_000);
    p.time.now = next!;
    expect(await p.delivery.deliverDue('alice', p.id)).toBeNull();
  });

  it('leaves types without a connector recorded but undelivered (remaining_bytes null)', async () => {
    const p = await platform();
    const other = await p.call('push.create', { name: 'db', output_type: 'redis', output_params: { host: 'h', port: 6379, database: 0 }, hash: ((await p.call('push.get', { id: p.id })).body as { hash: string }).hash });
    expect(other.status).toBe(200);
    expect((await p.call('push.get', { id: (other.body as { id: string }).id })).body).toMatchObject({ status: 'active', remaining_bytes: null });
  });
});
