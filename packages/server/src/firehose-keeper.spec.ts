import { describe, expect, it } from 'vitest';
import { createEngine, type EndpointId, type Engine } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { FirehoseKeeper } from './firehose-keeper.ts';

const T0 = Date.parse('2026-04-01T00:00:00Z');
const USER = { username: 'op', apiKey: 'op-key-0001' };

/** A server over `store`: its engine and keeper, as a start (or a restart) makes them. */
async function boot(store: MemoryEventStore, time: { now: number }, seed: number): Promise<{ engine: Engine; keeper: FirehoseKeeper }> {
  const engine = createEngine({ store, clock: { now: () => time.now }, ids: seededIds(seed) });
  const keeper = new FirehoseKeeper(engine);
  await keeper.recover();
  return { engine, keeper };
}

const call = (engine: Engine, endpoint: EndpointId, params: Record<string, unknown>) => engine.call({ version: '1.5', endpoint, credentials: USER, params });

async function startRecording(engine: Engine, csdl: string): Promise<string> {
  const hash = ((await call(engine, 'insight.compile', { csdl })).body as { hash: string }).hash;
  return ((await call(engine, 'insight.start', { hash, name: csdl.slice(0, 20) })).body as { id: string }).id;
}

const events = async (store: MemoryEventStore, type: string) => (await store.readAll()).filter((e) => e.type === type);

describe('the firehose keeper', () => {
  it('on the timer, a firehose that matches nothing writes no mark a round; stopping writes it, and a restart resumes there', async () => {
    const time = { now: T0 };
    const store = new MemoryEventStore();
    const first = await boot(store, time, 1);
    await first.engine.openAccount({ username: USER.username, api_key: USER.apiKey });
    await startRecording(first.engine, 'fb.content contains "no such word anywhere"');
    await first.keeper.switchOn('op', { service: 'facebook', perMinute: 60, seed: 3 });
    // The demo's 25 s: five timed rounds, each feeding five interactions that match nothing.
    for (let round = 0; round < 5; round++) {
      time.now += 5_000;
      await first.keeper.catchUpAll(false);
    }
    expect(await events(store, 'FirehoseFed')).toEqual([]);
    // The keeper's answer counts what it fed but has not marked.
    expect((await first.keeper.state('op')).fedUntil).toBe(time.now);
    await first.keeper.stop();
    expect((await events(store, 'FirehoseFed')).map((e) => (e.data as { until: number }).until)).toEqual([time.now]);

    // A restart over the same log resumes at that mark: a recording that matches everything started now
    // gets exactly the minutes fed from here on.
    const second = await boot(store, time, 2);
    const all = await startRecording(second.engine, 'fb.author.gender exists');
    time.now += 60_000;
    await second.keeper.catchUpAll(false);
    expect(((await call(second.engine, 'insight.get', { id: all })).body as { volume: number }).volume).toBe(60);
  });

  it('each move of the manual clock ends with a mark; a switch writes the progress held first, so a backfill never feeds it again', async () => {
    const time = { now: T0 };
    const store = new MemoryEventStore();
    const { engine, keeper } = await boot(store, time, 1);
    await engine.openAccount({ username: USER.username, api_key: USER.apiKey });
    await startRecording(engine, 'fb.content contains "no such word anywhere"');
    await keeper.switchOn('op', { service: 'facebook', perMinute: 60, seed: 3 });
    time.now += 60_000;
    await keeper.catchUpAll();
    expect((await events(store, 'FirehoseFed')).map((e) => (e.data as { until: number }).until)).toEqual([time.now]);

    // Timed rounds hold two minutes unmarked; the switch-off writes them first.
    time.now += 120_000;
    await keeper.catchUpAll(false);
    const heldUntil = time.now;
    expect(await events(store, 'FirehoseFed')).toHaveLength(1);
    await keeper.switchOff('op');
    expect((await events(store, 'FirehoseFed')).map((e) => (e.data as { until: number }).until)).toEqual([T0 + 60_000, heldUntil]);

    // Switched on again an hour later with an hour's backfill: it starts where feeding stopped.
    time.now += 60 * 60_000;
    const all = await startRecording(engine, 'fb.author.gender exists');
    await keeper.switchOn('op', { service: 'facebook', perMinute: 60, seed: 3, backfillMinutes: 60 });
    const switched = await events(store, 'FirehoseSwitchedOn');
    expect((switched.at(-1)!.data as { from: number }).from).toBe(heldUntil);
    expect(((await call(engine, 'insight.get', { id: all })).body as { volume: number }).volume).toBe(60 * 60);
  });
});
