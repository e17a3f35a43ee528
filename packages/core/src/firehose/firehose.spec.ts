import type { EndpointId } from '../catalogue/endpoints.ts';
import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { Engine } from '../pipeline/engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import { filterHandlers } from '../filters/handlers.ts';
import { recordingHandlers } from '../recordings/handlers.ts';
import { readTarget } from '../filters/index.ts';
import { FIREHOSE_CHUNK_ITEMS, FIREHOSE_MARK_SPAN_MS, firehose, type FirehoseProgress } from './firehose.ts';
import { firehoseBetween, firehoseMinute } from './synthetic-interactions.ts';

const T0 = Date.parse('2026-04-01T00:00:00Z');

describe('the synthetic firehose', () => {
  test.prop([fc.integer(), fc.constantFrom('facebook' as const, 'linkedin' as const), fc.integer({ min: 29_000_000, max: 30_000_000 })])(
    'is deterministic for a seed, service and minute',
    (seed, service, minute) => {
      expect(firehoseMinute(seed, service, minute, 20)).toEqual(firehoseMinute(seed, service, minute, 20));
    },
  );

  test.prop([fc.integer(), fc.integer({ min: 1, max: 30 * 60_000 }), fc.integer({ min: 1, max: 8 })], { numRuns: 30 })(
    'any split of a window feeds each interaction exactly once, in time order',
    (seed, cut, perMinute) => {
      const whole = [...firehoseBetween(seed, 'facebook', perMinute, T0, T0 + 30 * 60_000)];
      const split = [...firehoseBetween(seed, 'facebook', perMinute, T0, T0 + cut), ...firehoseBetween(seed, 'facebook', perMinute, T0 + cut, T0 + 30 * 60_000)];
      expect(split).toEqual(whole);
      expect(whole).toHaveLength(30 * perMinute);
      const times = whole.map((i) => readTarget(i, 'interaction.created_at') as number);
      expect([...times].sort((a, b) => a - b)).toEqual(times);
    },
  );

  it('has realistic spreads over the targets analysis counts', () => {
    const items = [...firehoseBetween(7, 'facebook', 200, T0, T0 + 50 * 60_000)];
    const share = (target: string, value: string) => items.filter((i) => readTarget(i, target) === value).length / items.length;
    expect(share('fb.author.gender', 'female')).toBeGreaterThan(0.4);
    expect(share('fb.author.gender', 'male')).toBeGreaterThan(0.4);
    expect(share('fb.author.country', 'United States')).toBeGreaterThan(0.2);
    expect(share('fb.type', 'like')).toBeGreaterThan(0.3);
    const authors = new Set(items.map((i) => readTarget(i, 'fb.author.id')));
    expect(authors.size).toBeGreaterThan(1000);
    expect(authors.size).toBeLessThan(items.length);
    const li = firehoseMinute(7, 'linkedin', 1, 50);
    expect(li.every((i) => typeof readTarget(i, 'li.user.member.country') === 'string')).toBe(true);
  });

  it('switched on for an account, feeds its running recordings up to now, once', async () => {
    const time = { now: T0 };
    const engine = new Engine({ store: new MemoryEventStore(), clock: { now: () => time.now }, ids: seededIds(5), handlers: { ...filterHandlers, ...recordingHandlers } });
    await engine.openAccount({ username: 'op', api_key: 'op-key-0001' });
    const call = (endpoint: EndpointId, params: Record<string, unknown>) => engine.call({ version: '1.5', endpoint, credentials: { username: 'op', apiKey: 'op-key-0001' }, params });
    const hash = ((await call('insight.compile', { csdl: 'fb.author.gender == "female"' })).body as { hash: string }).hash;
    const id = ((await call('insight.start', { hash, name: 'women' })).body as { id: string }).id;
    await firehose.switchOn(engine, 'op', { service: 'facebook', perMinute: 30, seed: 3 });
    time.now += 25 * 60_000;
    const first = await firehose.catchUp(engine, 'op');
    expect(first.accepted).toBe(25 * 30);
    expect(first.recorded).toBeGreaterThan(200);
    expect((await firehose.state(engine, 'op')).fedUntil).toBe(time.now);
    expect(await firehose.catchUp(engine, 'op')).toEqual({ accepted: 0, recorded: 0 });
    const g = await call('insight.get', { id });
    expect((g.body as { volume: number }).volume).toBe(first.recorded);
    await expect(firehose.switchOn(engine, 'op', { service: 'twitter' })).rejects.toThrow(/firehose service/);
    await expect(firehose.switchOn(engine, 'op', { perMinute: 0 })).rejects.toThrow(/perMinute/);
    // Switched on again with a backfill: the minutes before the switch that were never fed come first.
    await firehose.switchOff(engine, 'op');
    time.now += 60 * 60_000;
    await firehose.switchOn(engine, 'op', { service: 'facebook', perMinute: 30, seed: 3, backfillMinutes: 10 });
    time.now += 60_000;
    expect((await firehose.catchUp(engine, 'op')).accepted).toBe(11 * 30);
  });

  it('feeds a fast firehose in steps of a bounded number of interactions, every one of them', async () => {
    const time = { now: T0 };
    const engine = new Engine({ store: new MemoryEventStore(), clock: { now: () => time.now }, ids: seededIds(5), handlers: { ...filterHandlers, ...recordingHandlers } });
    await engine.openAccount({ username: 'op', api_key: 'op-key-0001' });
    await firehose.switchOn(engine, 'op', { service: 'facebook', perMinute: 12_000, seed: 3 });
    time.now += 2 * 60_000;
    const steps: number[] = [];
    for (let step = await firehose.catchUpStep(engine, 'op'); step; step = await firehose.catchUpStep(engine, 'op')) steps.push(step.accepted);
    expect(steps.reduce((a, b) => a + b, 0)).toBe(2 * 12_000);
    expect(Math.max(...steps)).toBeLessThanOrEqual(FIREHOSE_CHUNK_ITEMS);
  });

  it('a catch-up on a clock that moves while it runs (the system clock) ends at the now it started from', async () => {
    const time = { now: T0 };
    // Every read of the clock is a millisecond later, as on a real one.
    const engine = new Engine({ store: new MemoryEventStore(), clock: { now: () => (time.now += 1) }, ids: seededIds(5), handlers: { ...filterHandlers, ...recordingHandlers } });
    await engine.openAccount({ username: 'op', api_key: 'op-key-0001' });
    await firehose.switchOn(engine, 'op', { service: 'facebook', perMinute: 60, seed: 3 });
    time.now += 5 * 60_000;
    const ended = await Promise.race([firehose.catchUp(engine, 'op').then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 5_000))]);
    expect(ended).toBe(true);
  });

  it('a span that matches nothing is marked once it is FIREHOSE_MARK_SPAN_MS long; what records is marked with it', async () => {
    const time = { now: T0 };
    const store = new MemoryEventStore();
    const engine = new Engine({ store, clock: { now: () => time.now }, ids: seededIds(5), handlers: { ...filterHandlers, ...recordingHandlers } });
    await engine.openAccount({ username: 'op', api_key: 'op-key-0001' });
    const call = (endpoint: EndpointId, params: Record<string, unknown>) => engine.call({ version: '1.5', endpoint, credentials: { username: 'op', apiKey: 'op-key-0001' }, params });
    const hash = ((await call('insight.compile', { csdl: 'fb.content contains "no such word anywhere"' })).body as { hash: string }).hash;
    await call('insight.start', { hash, name: 'nothing' });
    await firehose.switchOn(engine, 'op', { service: 'facebook', perMinute: 120, seed: 3 });
    const marks = async () => (await store.readAll()).filter((e) => e.type === 'FirehoseFed').length;
    // A server's timed rounds for an hour, the progress held between them: every 5 s, then every 30 s.
    let progress: FirehoseProgress | null = null;
    for (let round = 0; round < 5 + 120; round++) {
      time.now += round < 5 ? 5_000 : 30_000;
      for (let step = await firehose.catchUpStep(engine, 'op', time.now, progress); step; step = await firehose.catchUpStep(engine, 'op', time.now, progress)) progress = step.progress;
      if (round === 4) expect(await marks()).toBe(0);
    }
    // An hour and 25 s: six marks where the old feeder wrote one a round (125).
    expect(progress!.until).toBe(time.now);
    expect(await marks()).toBe(Math.floor((time.now - T0) / FIREHOSE_MARK_SPAN_MS));

    // A recording that matches: each step that records writes its mark with what it recorded.
    const women = ((await call('insight.compile', { csdl: 'fb.author.gender == "female"' })).body as { hash: string }).hash;
    await call('insight.start', { hash: women, name: 'women' });
    const before = await marks();
    for (let round = 0; round < 3; round++) {
      time.now += 5_000;
      const step = await firehose.catchUpStep(engine, 'op', time.now, progress);
      expect(step!.recorded).toBeGreaterThan(0);
      expect(step!.progress).toEqual({ mark: time.now, until: time.now });
      progress = step!.progress;
    }
    expect(await marks()).toBe(before + 3);
  });

  test.prop(
    [
      fc.array(fc.record({ advanceMs: fc.integer({ min: 1_000, max: 25 * 60_000 }), restart: fc.boolean(), rounds: fc.integer({ min: 1, max: 3 }) }), { minLength: 1, maxLength: 25 }),
      fc.integer({ min: 1, max: 1_000 }),
    ],
    { numRuns: 12 },
  )('whatever restarts lose the progress held in memory, every interaction a recording matches is recorded exactly once', async (moves, seed) => {
    // A rare match (about one author in fifty at two a minute): spans with nothing recorded, unmarked, between marked ones.
    const csdl = 'fb.author.country == "Nigeria"';
    const options = { service: 'facebook' as const, perMinute: 2, seed };
    const time = { now: T0 };
    const store = new MemoryEventStore();
    let restarts = 0;
    const start = () => new Engine({ store, clock: { now: () => time.now }, ids: seededIds(100 + restarts++), handlers: { ...filterHandlers, ...recordingHandlers } });
    let engine = start();
    await engine.openAccount({ username: 'op', api_key: 'op-key-0001' });
    const call = (endpoint: EndpointId, params: Record<string, unknown>) => engine.call({ version: '1.5', endpoint, credentials: { username: 'op', apiKey: 'op-key-0001' }, params });
    const hash = ((await call('insight.compile', { csdl })).body as { hash: string }).hash;
    const id = ((await call('insight.start', { hash, name: 'rare' })).body as { id: string }).id;
    await firehose.switchOn(engine, 'op', options);
    let progress: FirehoseProgress | null = null;
    for (const move of moves) {
      for (let r = 0; r < move.rounds; r++) {
        time.now += Math.ceil(move.advanceMs / move.rounds);
        for (let step = await firehose.catchUpStep(engine, 'op', time.now, progress); step; step = await firehose.catchUpStep(engine, 'op', time.now, progress)) progress = step.progress;
      }
      if (move.restart) {
        // A crash: a new process over the same log, nothing held in memory.
        engine = start();
        progress = null;
      }
    }
    for (let step = await firehose.catchUpStep(engine, 'op', time.now, progress); step; step = await firehose.catchUpStep(engine, 'op', time.now, progress)) progress = step.progress;
    const volume = ((await call('insight.get', { id })).body as { volume: number }).volume;
    const expected = [...firehoseBetween(seed, 'facebook', options.perMinute, T0, time.now)].filter((i) => readTarget(i, 'fb.author.country') === 'Nigeria').length;
    expect(volume).toBe(expected);
  });

  it('a catch-up marks where it ended, so a caller that holds nothing between catch-ups resumes there', async () => {
    const time = { now: T0 };
    const store = new MemoryEventStore();
    const engine = new Engine({ store, clock: { now: () => time.now }, ids: seededIds(5), handlers: { ...filterHandlers, ...recordingHandlers } });
    await engine.openAccount({ username: 'op', api_key: 'op-key-0001' });
    await firehose.switchOn(engine, 'op', { service: 'facebook', perMinute: 60, seed: 3 });
    time.now += 60_000;
    expect((await firehose.catchUp(engine, 'op')).accepted).toBe(60);
    expect((await firehose.state(engine, 'op')).fedUntil).toBe(time.now);
    time.now += 60_000;
    expect((await firehose.catchUp(engine, 'op')).accepted).toBe(60);
    expect((await store.readAll()).filter((e) => e.type === 'FirehoseFed')).toHaveLength(2);
    // A progress from before a switch is stale: it neither skips nor marks anything of the new one.
    const stale = { mark: T0, until: time.now + 60_000 };
    await firehose.switchOff(engine, 'op');
    await firehose.switchOn(engine, 'op', { service: 'facebook', perMinute: 60, seed: 4, backfillMinutes: 1 });
    expect(await firehose.mark(engine, 'op', stale)).toEqual({ mark: time.now, until: time.now });
    time.now += 60_000;
    expect((await firehose.catchUpStep(engine, 'op', time.now, stale))!.accepted).toBe(60);
  });
});
