import type { EndpointId } from '../catalogue/endpoints.ts';
import { describe, expect, it } from 'vitest';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds, type Clock } from '../kernel/ports.ts';
import { compileAndRegister } from '../filters/index.ts';
import { createEngine } from '../platform.ts';
import { QUEUE_MS, runMsFor } from './progress.ts';

const creds = { username: 'alice', apiKey: 'alice-key-0001' };
const T0 = Date.parse('2026-02-01T00:00:00Z');
const START = T0 / 1000 - 86_400;
const END = START + 6 * 3600;

async function setup() {
  const time = { now: T0 };
  const clock: Clock = { now: () => time.now };
  const engine = createEngine({ store: new MemoryEventStore(), clock, ids: seededIds(5) });
  await engine.openAccount({ username: 'alice', api_key: creds.apiKey });
  const hash = await engine.command(async (uow) => (await compileAndRegister(uow, 'interaction.content contains "coffee"', { register: true })).hash);
  const call = (endpoint: EndpointId, params: Record<string, unknown> = {}) => engine.call({ version: '1.5', endpoint, credentials: creds, params });
  const prepare = async (over: Record<string, unknown> = {}) =>
    (await call('historics.prepare', { hash, start: START, end: END, sources: 'tumblr,facebook', name: 'past coffee', ...over })).body as { id: string };
  return { engine, time, call, hash, prepare };
}

describe('historics through engine.call', () => {
  it('prepare answers id (20 hex), dpus and availability; get shows it init', async () => {
    const { call, hash } = await setup();
    const a = await call('historics.prepare', { hash, start: String(START), end: END, sources: 'tumblr,facebook', name: 'q', sample: '10' });
    expect(a.status).toBe(200);
    expect(a.rate).toMatchObject({ cost: 25 });
    const body = a.body as { id: string; dpus: number; availability: { start: number; end: number; sources: Record<string, unknown> } };
    expect(body.id).toMatch(/^[0-9a-f]{20}$/);
    expect(body.dpus).toBeGreaterThan(0);
    expect(body.availability).toMatchObject({ start: START, end: END, sources: { tumblr: { status: 100, versions: ['3'], augmentations: [] }, facebook: { status: 100 } } });
    const got = await call('historics.get', { id: body.id });
    expect(got.body).toEqual({
      id: body.id,
      definition_id: hash,
      name: 'q',
      start: START,
      end: END,
      created_at: T0 / 1000,
      status: 'init',
      progress: 0,
      sources: ['tumblr', 'facebook'],
      sample: 10,
      estimated_completion: 0,
      delivery_count: 0,
      dpus: body.dpus,
    });
  });

  it('prepare refuses an unknown hash, a missing param and a reversed span with clear 400s', async () => {
    const { call, hash } = await setup();
    expect(await call('historics.prepare', { hash: 'a'.repeat(32), start: START, end: END, sources: 'tumblr', name: 'q' })).toMatchObject({
      status: 400,
      body: { error: 'hash must be a valid hash' },
    });
    expect((await call('historics.prepare', { hash, start: START, end: END, sources: 'tumblr' })).body).toEqual({ error: "Missing param 'name'" });
    expect((await call('historics.prepare', { hash, start: END, end: START, sources: 'tumblr', name: 'q' })).status).toBe(400);
    expect((await call('historics.prepare', { hash, start: 'soon', end: END, sources: 'tumblr', name: 'q' })).body).toEqual({ error: 'start must be a whole number' });
  });

  it('start 204, then it runs on the clock to succeeded with progress 100; start again 409', async () => {
    const { call, prepare, time } = await setup();
    const { id } = await prepare();
    expect((await call('historics.start', { id })).status).toBe(204);
    expect(await call('historics.start', { id })).toMatchObject({ status: 409, body: { error: 'Cannot start historics query: it is queued' } });
    time.now += QUEUE_MS + runMsFor(START, END) / 2;
    expect((await call('historics.get', { id })).body).toMatchObject({ status: 'running', progress: 50 });
    expect((await call('historics.start', { id })).status).toBe(409);
    time.now += runMsFor(START, END);
    expect((await call('historics.get', { id })).body).toMatchObject({ status: 'succeeded', progress: 100, estimated_completion: 0 });
  });

  it('pause, resume and stop answer 204; a transition not allowed answers 409 naming both', async () => {
    const { call, prepare } = await setup();
    const { id } = await prepare();
    expect(await call('historics.pause', { id })).toMatchObject({ status: 409, body: { error: 'Cannot pause historics query: it is init' } });
    await call('historics.start', { id });
    expect((await call('historics.pause', { id, reason: 'later' })).status).toBe(204);
    expect((await call('historics.get', { id })).body).toMatchObject({ status: 'paused' });
    expect((await call('historics.resume', { id })).status).toBe(204);
    expect((await call('historics.stop', { id })).status).toBe(204);
    expect((await call('historics.get', { id })).body).toMatchObject({ status: 'stopped' });
    expect(await call('historics.resume', { id })).toMatchObject({ status: 409, body: { error: 'Cannot resume historics query: it is stopped' } });
  });

  it('update renames (204); delete 204, then get and delete answer 404 with the recorded messages', async () => {
    const { call, prepare } = await setup();
    const { id } = await prepare();
    expect((await call('historics.update', { id, name: 'renamed' })).status).toBe(204);
    expect((await call('historics.get', { id })).body).toMatchObject({ name: 'renamed', status: 'init' });
    expect((await call('historics.delete', { id })).status).toBe(204);
    expect(await call('historics.get', { id })).toMatchObject({ status: 404, body: { error: `No historic found with the ID ${id} ` } });
    expect(await call('historics.delete', { id })).toMatchObject({ status: 404, body: { error: `No historics found with the ID ${id} ` } });
    expect((await call('historics.start', { id })).status).toBe(404);
  });

  it('get without id lists a page ({data, count}) with page and max', async () => {
    const { call, prepare } = await setup();
    const ids = [];
    for (let i = 0; i < 5; i++) ids.push((await prepare({ name: `q${i}` })).id);
    const p = await call('historics.get', { page: 2, max: 2 });
    expect(p.body).toMatchObject({ count: 5 });
    expect((p.body as { data: { id: string }[] }).data.map((q) => q.id)).toEqual(ids.slice(2, 4));
  });

  it('status answers one availability window per day of the period', async () => {
    const { call } = await setup();
    const s = await call('historics.status', { start: START, end: START + 2 * 86_400, sources: 'tumblr' });
    expect(s.status).toBe(200);
    const windows = s.body as { start: number; end: number; sources: Record<string, { status: number }> }[];
    expect(windows.length).toBeGreaterThanOrEqual(2);
    expect(windows[0]!.start).toBe(START);
    expect(windows[windows.length - 1]!.end).toBe(START + 2 * 86_400);
    expect(windows[0]!.sources.tumblr!.status).toBe(100);
    expect(windows[windows.length - 1]!.sources.tumblr!.status).toBe(0);
    expect((await call('historics.status', { start: START, end: END, sources: 'myspace' })).status).toBe(400);
  });
});
