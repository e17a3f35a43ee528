import type { EndpointId } from '../catalogue/endpoints.ts';
import { describe, expect, it } from 'vitest';
import type { VersionId } from '../catalogue/versions.ts';
import { Engine } from '../pipeline/engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import { sourceHandlers } from './handlers.ts';

const T0 = Date.parse('2026-03-01T12:00:00Z');
const S0 = Math.floor(T0 / 1000);

async function platform() {
  const time = { now: T0 };
  const store = new MemoryEventStore();
  const engine = new Engine({ store, clock: { now: () => time.now }, ids: seededIds(9), handlers: sourceHandlers() });
  await engine.openAccount({ username: 'alice', api_key: 'alice-key-01' });
  const call = (endpoint: EndpointId, params: Record<string, unknown> = {}, version: VersionId = '1.5') =>
    engine.call({ version, endpoint, credentials: { username: 'alice', apiKey: 'alice-key-01' }, params });
  return { engine, store, time, call };
}

const page = {
  source_type: 'facebook_page',
  name: 'My page',
  parameters: { comments: true, likes: false, page_likes: '1' },
  resources: [{ parameters: { id: '130871750291428', title: 'DataSift', url: 'http://www.facebook.com/datasift' } }],
  auth: [{ parameters: { value: 'CAAIUKbXn8xsBAL7eP...' } }],
};

type Source = { id: string; status: string; auth: { identity_id: string }[]; resources: { resource_id: string }[]; parameters: unknown };
const body = (a: { body?: unknown }) => a.body as Source;

describe('managed sources through engine.call', () => {
  it('create answers 201 with the source (stopped) once authentication succeeded; nested values may be JSON text', async () => {
    const p = await platform();
    const a = await p.call('source.create', page);
    expect(a.status).toBe(201);
    expect(a.rate?.cost).toBe(25);
    expect(a.body).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f]{32}$/),
      status: 'stopped',
      source_type: 'facebook_page',
      name: 'My page',
      parameters: { comments: true, page_likes: true },
      auth: [{ identity_id: expect.stringMatching(/^[0-9a-f]{32}$/), expires_at: null, parameters: { value: 'CAAIUKbXn8xsBAL7eP...' } }],
      resources: [{ resource_id: expect.stringMatching(/^[0-9a-f]{32}$/), parameters: { id: '130871750291428' } }],
      created_at: S0,
    });
    const text = await p.call('source.create', {
      ...page,
      parameters: JSON.stringify(page.parameters),
      resources: JSON.stringify(page.resources),
      auth: JSON.stringify(page.auth),
    });
    expect(text.status).toBe(201);
    expect(body(text).resources).toHaveLength(1);
    const gnip = await p.call('source.create', { source_type: 'twitter_gnip', name: 'g', parameters: '[]', resources: [{ parameters: { mapping: 'gnip_1' } }], auth: '[]' });
    expect(gnip).toMatchObject({ status: 201, body: { parameters: [], auth: [] } });
  });

  it('create refuses what it cannot authenticate or read, with a 400 naming it', async () => {
    const p = await platform();
    const bad = async (params: Record<string, unknown>, message: RegExp) => {
      const a = await p.call('source.create', params);
      expect(a.status).toBe(400);
      expect((a.body as { error: string }).error).toMatch(message);
    };
    await bad({ ...page, source_type: undefined }, /source_type/);
    await bad({ ...page, source_type: 'myspace' }, /not supported/);
    await bad({ ...page, name: undefined }, /name/);
    await bad({ ...page, auth: undefined }, /Authentication failed/);
    await bad({ ...page, auth: [{ parameters: { value: '' } }] }, /Authentication failed/);
    await bad({ ...page, auth: [{ parameters: { value: 't' }, expires_at: S0 - 1 }] }, /expired/);
    await bad({ ...page, resources: [{ parameters: { title: 'no id' } }] }, /resources\[0\].parameters.id/);
    await bad({ ...page, resources: '[{"parameters":' }, /valid JSON/);
    await bad({ ...page, parameters: { comments: 'perhaps' } }, /parameters.comments/);
    expect(((await p.call('source.get', {})).body as { count: number }).count).toBe(0);
  });

  it('start → running, stop → stopped (200 with the source); 409 naming both when not allowed', async () => {
    const p = await platform();
    const id = body(await p.call('source.create', page)).id;
    expect(await p.call('source.stop', { id })).toMatchObject({ status: 409, body: { error: expect.stringMatching(/stop.*stopped/) } });
    expect(await p.call('source.start', { id })).toMatchObject({ status: 200, body: { id, status: 'running' } });
    expect(await p.call('source.start', { id })).toMatchObject({ status: 409, body: { error: expect.stringMatching(/start.*running/) } });
    expect(await p.call('source.stop', { id })).toMatchObject({ status: 200, body: { id, status: 'stopped' } });
  });

  it('update answers 202 and keeps the status; auth and resource add/remove answer 200 and keep it', async () => {
    const p = await platform();
    const id = body(await p.call('source.create', page)).id;
    await p.call('source.start', { id });
    expect(await p.call('source.update', { id, name: 'Renamed', parameters: JSON.stringify({ comments: false }) })).toMatchObject({
      status: 202,
      body: { name: 'Renamed', status: 'running', parameters: { comments: false } },
    });
    const added = await p.call('source.auth.add', { id, auth: [{ parameters: { value: 'second-token' } }] });
    expect(added).toMatchObject({ status: 200, body: { status: 'running' } });
    expect(body(added).auth).toHaveLength(2);
    const first = body(added).auth[0]!.identity_id;
    const removed = await p.call('source.auth.remove', { id, auth_ids: JSON.stringify([first]) });
    expect(body(removed).auth.map((a) => a.identity_id)).not.toContain(first);
    expect((await p.call('source.auth.remove', { id, auth_ids: [first] })).status).toBe(400);
    const withMore = await p.call('source.resource.add', { id, resources: [{ parameters: { id: '2' } }] });
    expect(withMore).toMatchObject({ status: 200, body: { status: 'running' } });
    const r = body(withMore).resources[1]!.resource_id;
    const fewer = await p.call('source.resource.remove', { id, resource_ids: r });
    expect(body(fewer).resources.map((x) => x.resource_id)).not.toContain(r);
    expect((await p.call('source.resource.add', { id, resources: [{ parameters: {} }] })).status).toBe(400);
    expect((await p.call('source.update', { id })).status).toBe(400);
  });

  it('get one or a page of the list filtered by source_type; log lists what happened, newest first', async () => {
    const p = await platform();
    const a = body(await p.call('source.create', page)).id;
    const b = body(await p.call('source.create', { source_type: 'twitter_gnip', name: 'g', resources: [{ parameters: { mapping: 'gnip_1' } }] })).id;
    expect(await p.call('source.get', { id: a })).toMatchObject({ status: 200, body: { id: a } });
    expect((await p.call('source.get', {})).body).toMatchObject({ count: 2, page: 1, pages: 1, per_page: 20 });
    expect((await p.call('source.get', { source_type: 'twitter_gnip' })).body).toMatchObject({ count: 1, sources: [{ id: b }] });
    expect((await p.call('source.get', { per_page: 1, page: 2 })).body).toMatchObject({ count: 2, pages: 2, sources: [{ id: b }] });
    p.time.now += 1000;
    await p.call('source.start', { id: a });
    const log = await p.call('source.log', { id: a });
    expect(log.body).toMatchObject({
      count: 2,
      page: 1,
      pages: 1,
      per_page: 20,
      log_entries: [
        { id: expect.any(Number), event_time: S0 + 1, success: true, message: 'The source was started' },
        { event_time: S0, message: 'The source was created' },
      ],
    });
  });

  it('delete answers 204, then 404 for every call on it', async () => {
    const p = await platform();
    const id = body(await p.call('source.create', page)).id;
    expect((await p.call('source.delete', { id })).status).toBe(204);
    for (const endpoint of ['source.get', 'source.start', 'source.stop', 'source.update', 'source.delete', 'source.log', 'source.auth.add', 'source.resource.add'] as const) {
      const a = await p.call(endpoint, { id, name: 'x', auth: [{ parameters: { value: 't' } }], resources: [{ parameters: { id: '1' } }] });
      expect(a.status, endpoint).toBe(404);
    }
    expect(((await p.call('source.get', {})).body as { count: number }).count).toBe(0);
  });

  it('category get lists the source types', async () => {
    const p = await platform();
    const a = await p.call('source.category.get');
    expect(a.status).toBe(200);
    expect((a.body as { categories: { source_type: string }[] }).categories.map((c) => c.source_type)).toContain('facebook_page');
  });
});
