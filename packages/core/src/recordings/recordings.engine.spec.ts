import type { EndpointId } from '../catalogue/endpoints.ts';
import { describe, expect, it } from 'vitest';
import { Engine } from '../pipeline/engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import type { VersionId } from '../catalogue/versions.ts';
import { filterHandlers } from '../filters/handlers.ts';
import { accountDecider, accountStream } from '../accounting/account.ts';
import { recordInteractions, recordedInteractions } from './record-interactions.ts';
import { recordingHandlers } from './handlers.ts';
import { replay } from '../kernel/replay.ts';
import { recordingsReplayTarget } from './index.ts';
import { capacityReplayTarget } from '../recording-index/index.ts';
import { RecordingIndex } from '../recording-index/recording-index.ts';
import type { EventStore } from '../kernel/event-store.ts';
import type { StoredEvent } from '../kernel/events.ts';

const T0 = Date.parse('2026-03-01T12:00:00Z');

async function platform(pkg: Record<string, unknown> = {}) {
  const time = { now: T0 };
  const store = new MemoryEventStore();
  const engine = new Engine({ store, clock: { now: () => time.now }, ids: seededIds(3), handlers: { ...filterHandlers, ...recordingHandlers } });
  await engine.openAccount({ username: 'alice', api_key: 'alice-key-01', package: pkg });
  const call = (version: VersionId, endpoint: EndpointId, params: Record<string, unknown> = {}) =>
    engine.call({ version, endpoint, credentials: { username: 'alice', apiKey: 'alice-key-01' }, params });
  const compile = async (csdl: string): Promise<string> => {
    const a = await call('1.5', 'insight.compile', { csdl });
    expect(a.status).toBe(200);
    return (a.body as { hash: string }).hash;
  };
  const feed = (interactions: Record<string, unknown>[]) =>
    engine.command(async (uow) => {
      const account = await uow.load(accountDecider, accountStream('alice'));
      return recordInteractions({ uow, account, settings: engine.settings, now: uow.now }, interactions);
    });
  return { engine, store, time, call, compile, feed };
}

const post = (n: number, content: string, extra: Record<string, unknown> = {}) => ({
  interaction: { id: `i${n}`, content, created_at: Math.floor(T0 / 1000) - 60 + n },
  fb: { author: { id: `a${n % 7}`, gender: n % 2 ? 'male' : 'female' }, content, ...extra },
});

describe('recordings through engine.call', () => {
  it('v1.5: start answers 200 {id}, get shows it running, stop 204, stop again 409', async () => {
    const p = await platform();
    const hash = await p.compile('fb.content contains "coffee"');
    const s = await p.call('1.5', 'insight.start', { hash, name: 'coffee', service: 'facebook' });
    expect(s.status).toBe(200);
    const id = (s.body as { id: string }).id;
    expect(id).toMatch(/^[0-9a-f]{40}$/);
    const g = await p.call('1.5', 'insight.get', { id });
    expect(g.body).toMatchObject({ id, hash, name: 'coffee', status: 'running', end: null, volume: 0, reached_capacity: false, remaining_index_capacity: 1_000_000, remaining_account_capacity: 1_000_000 });
    expect((await p.call('1.5', 'insight.stop', { id })).status).toBe(204);
    const again = await p.call('1.5', 'insight.stop', { id });
    expect(again.status).toBe(409);
    expect((again.body as { error: string }).error).toMatch(/Subscription not running/);
  });

  it('v1.0: start by hash answers 204, starting it again while running is 409, get lists a bare array', async () => {
    const p = await platform();
    const hash = await p.compile('fb.content contains "tea"');
    expect((await p.call('1.0', 'insight.start', { hash, name: 'tea' })).status).toBe(204);
    expect((await p.call('1.0', 'insight.start', { hash, name: 'tea' })).status).toBe(409);
    const list = await p.call('1.0', 'insight.get');
    expect(Array.isArray(list.body)).toBe(true);
    expect((list.body as unknown[])[0]).not.toHaveProperty('id');
    expect((await p.call('1.0', 'insight.stop', { hash })).status).toBe(204);
    expect((await p.call('1.0', 'insight.start', { hash, name: 'tea again' })).status).toBe(204);
    expect(((await p.call('1.0', 'insight.get', { hash })).body as { name: string }).name).toBe('tea again');
  });

  it('refuses a hash that names no compiled filter with 400 hash must be a valid hash, and a missing name', async () => {
    const p = await platform();
    const bad = await p.call('1.5', 'insight.start', { hash: 'f'.repeat(32), name: 'x' });
    expect(bad).toMatchObject({ status: 400, body: { error: 'hash must be a valid hash' } });
    expect((await p.call('1.5', 'insight.start', { hash: 'nothex', name: 'x' })).status).toBe(400);
    const hash = await p.compile('fb.content contains "x"');
    expect(await p.call('1.0', 'insight.start', { hash })).toMatchObject({ status: 400, body: { error: "Missing param 'name'" } });
  });

  it('refuses a service outside the package with 400 naming the valid ones', async () => {
    const p = await platform({ services: ['facebook'] });
    const hash = await p.compile('fb.content contains "x"');
    const a = await p.call('1.5', 'insight.start', { hash, name: 'x', service: 'linkedin' });
    expect(a).toMatchObject({ status: 400, body: { error: 'service is invalid; valid values are: facebook' } });
  });

  it('v1.3+: restart by id, update hash and name (204), unknown id 404, missing id 400, paginated list', async () => {
    const p = await platform({ concurrent_recordings: 2 });
    const h1 = await p.compile('fb.content contains "a"');
    const h2 = await p.compile('fb.content contains "b"');
    const ids: string[] = [];
    for (const name of ['one', 'two']) ids.push(((await p.call('1.3', 'insight.start', { hash: h1, name })).body as { id: string }).id);
    expect((await p.call('1.3', 'insight.start', { hash: h1, name: 'three' })).status).toBe(403);
    expect((await p.call('1.3', 'insight.stop', { id: ids[0] })).status).toBe(204);
    expect((await p.call('1.3', 'insight.start', { id: ids[0] })).body).toEqual({ id: ids[0] });
    expect((await p.call('1.3', 'insight.update', { id: ids[1], hash: h2, name: 'renamed' })).status).toBe(204);
    expect((await p.call('1.3', 'insight.get', { id: ids[1] })).body).toMatchObject({ hash: h2, name: 'renamed' });
    expect((await p.call('1.3', 'insight.update', { id: ids[1] })).status).toBe(400);
    expect((await p.call('1.3', 'insight.get', { id: 'c'.repeat(40) })).status).toBe(404);
    expect((await p.call('1.3', 'insight.stop', {})).body).toEqual({ error: 'No id was supplied.' });
    const page = await p.call('1.5', 'insight.get', { per_page: 1, page: 2 });
    expect(page.body).toMatchObject({ count: 2, page: 2, pages: 2, per_page: 1 });
    expect((page.body as { subscriptions: { id: string }[] }).subscriptions.map((s) => s.id)).toEqual([ids[1]]);
  });

  it('running recordings keep what their filter matches, with volume and remaining capacities', async () => {
    const p = await platform();
    const hash = await p.compile('tag "hot" { fb.content contains "hot" } return { fb.content contains "coffee" }');
    const id = ((await p.call('1.5', 'insight.start', { hash, name: 'c' })).body as { id: string }).id;
    const result = await p.feed([post(1, 'hot coffee'), post(2, 'cold tea'), post(3, 'iced coffee')]);
    expect(result).toEqual({ accepted: 3, recorded: 2 });
    const g = await p.call('1.5', 'insight.get', { id });
    expect(g.body).toMatchObject({ volume: 2, remaining_index_capacity: 999_998, remaining_account_capacity: 999_998 });
    const kept = await p.engine.command((uow) => recordedInteractions({ recordingIndex: p.engine.recordingIndex, now: uow.now }, id, 0, T0 + 1));
    expect(kept.map((k) => (k.interaction.interaction as { id: string }).id)).toEqual(['i1', 'i3']);
    expect((kept[0]!.interaction.interaction as { tags: string[] }).tags).toEqual(['hot']);
    // A stopped recording keeps nothing more.
    await p.call('1.5', 'insight.stop', { id });
    expect(await p.feed([post(4, 'more coffee')])).toEqual({ accepted: 1, recorded: 0 });
  });

  it('an account at its daily limit reads reached_capacity, with 0 remaining account capacity', async () => {
    const p = await platform({ index_capacity_per_month: 0 });
    const hash = await p.compile('fb.content contains "coffee"');
    const id = ((await p.call('1.5', 'insight.start', { hash, name: 'c' })).body as { id: string }).id;
    expect(await p.feed([post(1, 'coffee')])).toEqual({ accepted: 1, recorded: 0 });
    expect((await p.call('1.5', 'insight.get', { id })).body).toMatchObject({ volume: 0, reached_capacity: true, remaining_account_capacity: 0 });
  });

  it('the index is rebuilt from the event log by a fresh engine on the same store', async () => {
    const p = await platform();
    const hash = await p.compile('fb.content contains "coffee"');
    const id = ((await p.call('1.5', 'insight.start', { hash, name: 'c' })).body as { id: string }).id;
    await p.feed([post(1, 'coffee'), post(2, 'coffee'), post(3, 'tea')]);
    // A copy of the log in a new store: a restarted process sees only the log.
    const copy = new MemoryEventStore();
    const events = await p.store.readAll(0);
    for (const e of events) await copy.append([{ stream: e.stream, expectedVersion: -1, events: [{ id: e.id, type: e.type, data: e.data, time: e.time }] }]);
    const restarted = new Engine({ store: copy, clock: { now: () => p.time.now }, ids: seededIds(9), handlers: { ...filterHandlers, ...recordingHandlers } });
    const g = await restarted.call({ version: '1.5', endpoint: 'insight.get', credentials: { username: 'alice', apiKey: 'alice-key-01' }, params: { id } });
    expect(g.body).toMatchObject({ volume: 2, remaining_index_capacity: 999_998 });
    // The replay tool rebuilds the recordings and capacity aggregates from the log alone.
    const report = await replay(copy, [recordingsReplayTarget, capacityReplayTarget]);
    expect(report.mismatches).toEqual([]);
    const rebuilt = [...report.aggregates.values()].find((a) => a.stream === 'recordings:alice');
    expect((rebuilt?.state as { byId: Record<string, { status: string }> }).byId[id]?.status).toBe('running');
    // After a reset the index forgets everything.
    await restarted.reset();
    await restarted.openAccount({ username: 'alice', api_key: 'alice-key-01' });
    const after = await restarted.call({ version: '1.5', endpoint: 'insight.get', credentials: { username: 'alice', apiKey: 'alice-key-01' }, params: { id } });
    expect(after.status).toBe(404);
  });
});

describe('retention', () => {
  it('interactions older than 32 days leave volume and reads, and the index lets go of them', async () => {
    const p = await platform();
    const hash = await p.compile('fb.content contains "coffee"');
    const id = ((await p.call('1.5', 'insight.start', { hash, name: 'c' })).body as { id: string }).id;
    await p.feed([post(1, 'coffee'), post(2, 'coffee')]);
    p.time.now += 31 * 86_400_000;
    await p.feed([{ ...post(3, 'coffee'), interaction: { id: 'i3', content: 'coffee' } }]);
    expect((await p.call('1.5', 'insight.get', { id })).body).toMatchObject({ volume: 3 });
    p.time.now += 2 * 86_400_000;
    expect((await p.call('1.5', 'insight.get', { id })).body).toMatchObject({ volume: 1 });
    p.time.now += 86_400_000 + 1;
    await p.call('1.5', 'insight.get', { id });
    const kept = await p.engine.command((uow) => recordedInteractions({ recordingIndex: p.engine.recordingIndex, now: uow.now }, id, 0, p.time.now));
    expect(kept.map((k) => (k.interaction.interaction as { id: string }).id)).toEqual(['i3']);
  });
});

describe("the engine's recording index (a projection the engine owns)", () => {
  /** A memory store that notes every read of the whole log and what the typed reads answered. */
  function spiedStore() {
    const inner = new MemoryEventStore();
    const seen = { readAll: 0, types: new Set<string>(), answered: [] as StoredEvent[], afters: [] as number[] };
    const store: EventStore = Object.assign(Object.create(inner) as EventStore, {
      async readAll(after?: number, limit?: number) {
        seen.readAll++;
        return inner.readAll(after, limit);
      },
      async readTypes(types: readonly string[], after = 0, limit?: number) {
        for (const t of types) seen.types.add(t);
        seen.afters.push(after);
        const page = await inner.readTypes(types, after, limit);
        seen.answered.push(...page);
        return page;
      },
    });
    return { store, seen };
  }

  it('reads only InteractionsRecorded from the store, never the charges, and only what is new at each read; its lag is 0 after a read', async () => {
    const { store, seen } = spiedStore();
    const time = { now: T0 };
    const engine = new Engine({ store, clock: { now: () => time.now }, ids: seededIds(4), handlers: { ...filterHandlers, ...recordingHandlers } });
    await engine.openAccount({ username: 'alice', api_key: 'alice-key-01' });
    const call = (endpoint: EndpointId, params: Record<string, unknown>) => engine.call({ version: '1.5', endpoint, credentials: { username: 'alice', apiKey: 'alice-key-01' }, params });
    const hash = ((await call('insight.compile', { csdl: 'fb.content contains "coffee"' })).body as { hash: string }).hash;
    const id = ((await call('insight.start', { hash, name: 'c' })).body as { id: string }).id;
    const feed = (items: Record<string, unknown>[]) =>
      engine.command(async (uow) => recordInteractions({ uow, account: await uow.load(accountDecider, accountStream('alice')), settings: engine.settings, now: uow.now }, items));
    await feed([post(1, 'coffee'), post(2, 'tea')]);
    for (let k = 0; k < 20; k++) await call('insight.get', { id });
    expect((await call('insight.get', { id })).body).toMatchObject({ volume: 1 });
    await feed([post(3, 'coffee'), post(4, 'coffee')]);
    const checkpoint = engine.recordingIndex.checkpoint;
    const before = seen.answered.length;
    const head = await store.head();
    expect((await call('insight.get', { id })).body).toMatchObject({ volume: 3 });
    // The read caught up with everything written before the call; only the call's own charge came after.
    expect(engine.recordingIndex.checkpoint).toBe(head);
    expect(await engine.recordingIndex.lag()).toBe((await store.head()) - head);
    expect(seen.readAll).toBe(0);
    expect([...seen.types]).toEqual(['InteractionsRecorded']);
    expect(seen.answered.every((e) => e.type === 'InteractionsRecorded')).toBe(true);
    // The last read started at the checkpoint and brought only the one new event.
    expect(seen.afters.at(-1)).toBe(checkpoint);
    expect(seen.answered.length - before).toBe(1);
    expect(seen.answered).toHaveLength(2);
    await engine.recordingIndex.catchUp();
    expect(await engine.recordingIndex.lag()).toBe(0);
    expect(engine.recordingIndex.checkpoint).toBe(await store.head());
    expect(seen.answered).toHaveLength(2);
  });

  it('an embedder passes its own index; two engines on one store see each other’s interactions at their next read', async () => {
    const p = await platform();
    const own = new RecordingIndex(p.store);
    const other = new Engine({ store: p.store, clock: { now: () => p.time.now }, ids: seededIds(8), handlers: { ...filterHandlers, ...recordingHandlers }, recordingIndex: own });
    expect(other.recordingIndex).toBe(own);
    expect(p.engine.recordingIndex).not.toBe(own);
    const hash = await p.compile('fb.content contains "coffee"');
    const id = ((await p.call('1.5', 'insight.start', { hash, name: 'c' })).body as { id: string }).id;
    const get = () => other.call({ version: '1.5', endpoint: 'insight.get', credentials: { username: 'alice', apiKey: 'alice-key-01' }, params: { id } });
    expect((await get()).body).toMatchObject({ volume: 0 });
    await p.feed([post(1, 'coffee'), post(2, 'coffee')]);
    expect(await own.lag()).toBeGreaterThan(0);
    const head = await p.store.head();
    expect((await get()).body).toMatchObject({ volume: 2 });
    expect(own.checkpoint).toBe(head);
    await p.feed([post(3, 'coffee')]);
    expect((await get()).body).toMatchObject({ volume: 3 });
  });
});
