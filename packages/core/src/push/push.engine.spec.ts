import type { EndpointId } from '../catalogue/endpoints.ts';
import { describe, expect, it } from 'vitest';
import type { VersionId } from '../catalogue/versions.ts';
import { Engine } from '../pipeline/engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import { filterHandlers } from '../filters/handlers.ts';
import { historicsHandlers } from '../historics/handlers.ts';
import { recordingHandlers } from '../recordings/handlers.ts';
import { sourceHandlers } from '../sources/handlers.ts';
import { pushHandlers } from './handlers.ts';
import { FINISHING_MS } from './push-subscription.ts';

const T0 = Date.parse('2026-03-01T12:00:00Z');
const S0 = Math.floor(T0 / 1000);

async function platform() {
  const time = { now: T0 };
  const engine = new Engine({
    store: new MemoryEventStore(),
    clock: { now: () => time.now },
    ids: seededIds(21),
    handlers: { ...filterHandlers, ...recordingHandlers, ...historicsHandlers, ...pushHandlers(), ...sourceHandlers() },
  });
  await engine.openAccount({ username: 'alice', api_key: 'alice-key-01' });
  const call = (endpoint: EndpointId, params: Record<string, unknown> = {}, version: VersionId = '1.5', body?: string) =>
    engine.call({ version, endpoint, credentials: { username: 'alice', apiKey: 'alice-key-01' }, params, body });
  const hash = ((await call('core.compile', { csdl: 'fb.content contains "coffee"' })).body as { hash: string }).hash;
  const historicsId = ((await call('historics.prepare', { hash, start: S0 - 7200, end: S0 - 60, sources: 'facebook', name: 'past' })).body as { id: string }).id;
  const create = (params: Record<string, unknown> = {}, version: VersionId = '1.5') =>
    call('push.create', { name: 'sub', output_type: 'pull', output_params: { format: 'json_array' }, hash, ...params }, version);
  return { engine, time, call, hash, historicsId, create };
}

const idOf = (a: { body?: unknown }): string => (a.body as { id: string }).id;

describe('push/validate', () => {
  it('answers 200 {success, message} for a known output type with its settings, in every encoding clients use', async () => {
    const p = await platform();
    const ok = { status: 200, body: { success: true, message: 'Validated successfully' } };
    expect(await p.call('push.validate', { output_type: 'pull' })).toMatchObject(ok);
    expect(await p.call('push.validate', { output_type: 'http', output_params: { url: 'https://example.test/hook' } })).toMatchObject(ok);
    expect(await p.call('push.validate', { output_type: 's3', 'output_params.bucket': 'b', 'output_params.auth.access_key': 'k', 'output_params.auth.secret_key': 's' })).toMatchObject(ok);
    expect(await p.call('push.validate', { output_type: 'http', output_params: JSON.stringify({ url: 'http://x.test' }) })).toMatchObject(ok);
  });
  it('answers 400 naming the problem otherwise', async () => {
    const p = await platform();
    const bad = async (params: Record<string, unknown>, message: RegExp) => {
      const a = await p.call('push.validate', params);
      expect(a.status).toBe(400);
      expect((a.body as { error: string }).error).toMatch(message);
    };
    await bad({}, /output_type/);
    await bad({ output_type: 'carrier_pigeon' }, /not supported/);
    await bad({ output_type: 'http' }, /output_params/);
    await bad({ output_type: 'http', output_params: { url: 'ftp://x' } }, /output_params.url/);
    await bad({ output_type: 's3', output_params: { bucket: 'b', auth: { access_key: 'k' } } }, /auth.secret_key/);
    await bad({ output_type: 'pull', output_params: { format: 'xml' } }, /format/);
    await bad({ output_type: 'pull', output_params: '{not json' }, /valid JSON/);
  });
});

describe('push/create', () => {
  it('answers the subscription object of docs/clients.md#push-subscription with a 32-hex id, active, end 0', async () => {
    const p = await platform();
    const a = await p.create();
    expect(a.status).toBe(200);
    expect(a.rate?.cost).toBe(5);
    expect(a.body).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      name: 'sub',
      output_type: 'pull',
      output_params: { format: 'json_array' },
      created_at: S0,
      user_id: expect.any(Number),
      hash: p.hash,
      hash_type: 'stream',
      status: 'active',
      last_request: null,
      last_success: null,
      lost_data: false,
      start: S0,
      end: 0,
    });
  });
  it('takes historics_id (hash_type historic), and playback_id as its synonym before 1.2 only', async () => {
    const p = await platform();
    const h = await p.create({ hash: undefined, historics_id: p.historicsId });
    expect(h.body).toMatchObject({ hash: p.historicsId, hash_type: 'historic' });
    const old = await p.create({ hash: undefined, playback_id: p.historicsId }, '1.1');
    expect(old).toMatchObject({ status: 200, body: { hash: p.historicsId, hash_type: 'historic' } });
    const now = await p.create({ hash: undefined, playback_id: p.historicsId }, '1.2');
    expect(now.status).toBe(400);
    expect((now.body as { error: string }).error).toMatch(/playback_id/);
  });
  it('refuses both or neither source, a filter never compiled, a historics id of nothing, and an unknown initial_status', async () => {
    const p = await platform();
    expect((await p.create({ historics_id: p.historicsId })).status).toBe(400);
    expect((await p.create({ hash: undefined })).status).toBe(400);
    expect((await p.create({ hash: '0'.repeat(32) })).status).toBe(400);
    expect((await p.create({ hash: 'nothex' })).status).toBe(400);
    expect((await p.create({ hash: undefined, historics_id: '0'.repeat(20) })).status).toBe(404);
    expect((await p.create({ initial_status: 'finished' })).status).toBe(400);
    expect((await p.create({ name: undefined })).status).toBe(400);
  });
  it('initial_status and start/end: waiting_for_start until start, finishing at end, finished a minute on', async () => {
    const p = await platform();
    const paused = await p.create({ initial_status: 'paused' });
    expect(paused.body).toMatchObject({ status: 'paused' });
    const later = await p.create({ start: S0 + 60, end: S0 + 120 });
    expect(later.body).toMatchObject({ status: 'waiting_for_start', start: S0 + 60, end: S0 + 120 });
    const id = idOf(later);
    const status = async () => ((await p.call('push.get', { id })).body as { status: string }).status;
    p.time.now = T0 + 60_000;
    expect(await status()).toBe('active');
    p.time.now = T0 + 120_000;
    expect(await status()).toBe('finishing');
    p.time.now = T0 + 120_000 + FINISHING_MS;
    expect(await status()).toBe('finished');
  });
});

describe('the lifecycle through engine.call', () => {
  it('pause, resume, update, stop answer the subscription; delete 204, then 404 for everything', async () => {
    const p = await platform();
    const id = idOf(await p.create());
    expect(await p.call('push.pause', { id })).toMatchObject({ status: 200, body: { id, status: 'paused' }, rate: { cost: 1 } });
    expect((await p.call('push.pause', { id })).status).toBe(409);
    expect(await p.call('push.resume', { id })).toMatchObject({ status: 200, body: { status: 'active' } });
    const u = await p.call('push.update', { id, name: 'renamed', 'output_params.format': 'json_meta' });
    expect(u).toMatchObject({ status: 200, body: { name: 'renamed', output_params: { format: 'json_meta' }, status: 'active' } });
    expect((await p.call('push.update', { id, output_type: 's3' })).status).toBe(400);
    p.time.now += 5000;
    expect(await p.call('push.stop', { id })).toMatchObject({ status: 200, body: { status: 'finishing', end: S0 + 5 } });
    const again = await p.call('push.stop', { id });
    expect(again.status).toBe(409);
    expect((again.body as { error: string }).error).toMatch(/stop.*finishing/);
    expect((await p.call('push.resume', { id })).status).toBe(409);
    expect((await p.call('push.delete', { id })).status).toBe(204);
    for (const endpoint of ['push.get', 'push.pause', 'push.resume', 'push.stop', 'push.update', 'push.delete', 'push.log', 'push.pull'] as const) {
      expect((await p.call(endpoint, { id, name: 'x' })).status, endpoint).toBe(404);
    }
  });

  it('get lists with count, hides finished ones unless include_finished, filters by hash or historics_id, pages', async () => {
    const p = await platform();
    const a = idOf(await p.create({ name: 'a' }));
    const b = idOf(await p.create({ name: 'b' }));
    const h = idOf(await p.create({ name: 'h', hash: undefined, historics_id: p.historicsId }));
    await p.call('push.stop', { id: a });
    p.time.now += FINISHING_MS;
    const list = async (params: Record<string, unknown>) => ((await p.call('push.get', params)).body as { subscriptions: { id: string }[]; count: number });
    expect((await list({})).subscriptions.map((s) => s.id)).toEqual([b, h]);
    for (const flag of [1, '1', 'true', true]) expect((await list({ include_finished: flag })).count).toBe(3);
    for (const flag of [0, '0', 'false']) expect((await list({ include_finished: flag })).count).toBe(2);
    expect((await list({ hash: p.hash, include_finished: 1 })).subscriptions.map((s) => s.id)).toEqual([a, b]);
    expect((await list({ historics_id: p.historicsId })).subscriptions.map((s) => s.id)).toEqual([h]);
    expect(await list({ include_finished: 1, page: 2, per_page: 2 })).toMatchObject({ count: 3, subscriptions: [{ id: h }] });
    expect((await p.call('push.get', { id: b })).body).toMatchObject({ id: b, interaction_count: 0, end: null });
    expect((await p.call('push.get', { include_finished: 'maybe' })).status).toBe(400);
  });

  it('log lists the status changes of one subscription or all, newest first', async () => {
    const p = await platform();
    const id = idOf(await p.create());
    p.time.now += 1000;
    await p.call('push.pause', { id });
    p.time.now += 1000;
    await p.call('push.resume', { id });
    p.time.now += 1000;
    await p.call('push.stop', { id });
    p.time.now += FINISHING_MS;
    const log = (await p.call('push.log', { id })).body as { success: boolean; count: number; log_entries: { message: string; subscription_id: string; request_time: number }[] };
    expect(log.success).toBe(true);
    expect(log.log_entries.map((e) => e.message)).toEqual([
      'The status has changed to: finished',
      'The status has changed to: finishing',
      'The status has changed to: active',
      'The status has changed to: paused',
      'Subscription created; The status has changed to: active',
    ]);
    expect(log.log_entries[0]).toMatchObject({ subscription_id: id, request_time: S0 + 3 + FINISHING_MS / 1000 });
    const other = idOf(await p.create());
    expect(((await p.call('push.log', {})).body as { count: number }).count).toBe(6);
    expect(((await p.call('push.log', { per_page: 2, order_dir: 'asc' })).body as { log_entries: unknown[] }).log_entries).toHaveLength(2);
    expect(other).toBeDefined();
  });
});

describe('pull from a historics query', () => {
  it('delivers nothing until the query runs, then its results as it progresses, all once it has succeeded', async () => {
    const p = await platform();
    expect((await p.call('insight.start', { hash: p.hash, name: 'c', service: 'facebook' })).status).toBe(200);
    const source = idOf(await p.call('source.create', { source_type: 'twitter_gnip', name: 'g', resources: [{ parameters: { mapping: 'gnip_1' } }] }));
    await p.call('source.start', { id: source });
    const lines = [0, 1, 2, 3].map((k) => JSON.stringify({ interaction: { id: `h${k}`, created_at: S0 - 3600 + k }, fb: { content: `coffee ${k}` } }));
    expect((await p.call('ingest', { source_id: source }, '1.5', lines.join('\n'))).status).toBe(200);
    const id = idOf(await p.create({ hash: undefined, historics_id: p.historicsId }));
    expect((await p.call('push.pull', { id })).status).toBe(204);
    expect((await p.call('historics.start', { id: p.historicsId })).status).toBe(204);
    p.time.now += 24 * 3_600_000;
    const a = await p.call('push.pull', { id });
    expect(a.status).toBe(200);
    expect((a.body as { interaction: { id: string } }[]).map((i) => i.interaction.id)).toEqual(['h0', 'h1', 'h2', 'h3']);
    expect((await p.call('push.pull', { id })).status).toBe(204);
  });
});

describe('registration', () => {
  it('the platform engine serves push, pull, sources and ingestion', async () => {
    const { createEngine } = await import('../platform.ts');
    const engine = createEngine({ store: new MemoryEventStore(), clock: { now: () => T0 }, ids: seededIds(2) });
    await engine.openAccount({ username: 'alice', api_key: 'alice-key-01' });
    const call = (endpoint: EndpointId, params: Record<string, unknown> = {}, body?: string) =>
      engine.call({ version: '1.5', endpoint, credentials: { username: 'alice', apiKey: 'alice-key-01' }, params, body });
    expect((await call('push.validate', { output_type: 'pull' })).status).toBe(200);
    expect((await call('push.pull', { id: '0'.repeat(32) })).status).toBe(404);
    expect((await call('source.category.get')).status).toBe(200);
    expect(await call('ingest', { source_id: '0'.repeat(32) }, '{}')).toMatchObject({ status: 404, body: { error: 'Unknown user source' } });
  });
});
