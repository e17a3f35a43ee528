import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { Engine } from '@sdp/core';
import { creditsDecider, openWindow, creditsStream } from '@sdp/core/deciders';
import { fixedClock, replay, seededIds, SNAPSHOT_EVERY, type Decider, type DomainEvent, type EventStore, type NewEvent } from '@sdp/core/kernel';
import { openSqliteStore } from './sqlite-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'sdp-snapshots-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const T = Date.parse('2026-03-01T10:00:00Z');
const charge = (i: number): NewEvent => ({
  id: `c${i}`,
  type: 'CreditsCharged',
  data: { at: T + i, endpoint: 'core.balance', lines: [{ key: 'general', cost: 1, start: T }] },
  time: T + i,
});

/** Counts the events a store hands out, so a test can tell what a load cost. */
function counting(store: EventStore): { store: EventStore; read: () => number } {
  let read = 0;
  const wrapped: EventStore = Object.assign(Object.create(store) as EventStore, {
    readStream: async (stream: string, after?: number) => {
      const events = await store.readStream(stream, after);
      read += events.length;
      return events;
    },
  });
  return { store: wrapped, read: () => read };
}

/** The engine's own loader over `store` (its cache and snapshots), with no call made. */
const loaderOver = (store: EventStore) => new Engine({ store, clock: fixedClock(T), ids: seededIds(1) }).loader;

it('after a restart, an account with 100,000 charges loads from its snapshot, reading fewer than SNAPSHOT_EVERY events', { timeout: 120_000 }, async () => {
  const path = join(dir, 'long.db');
  const first = await openSqliteStore(path);
  const total = 100_000;
  for (let v = 0; v < total; v += 10_000) {
    await first.append([{ stream: creditsStream('long'), expectedVersion: v, events: Array.from({ length: 10_000 }, (_, i) => charge(v + i)) }]);
  }
  await first.append([{ stream: creditsStream('short'), expectedVersion: 0, events: [charge(1), charge(2)] }]);
  // The first load after the import folds everything once and leaves a snapshot behind.
  const loaded = await loaderOver(first).load(creditsDecider, creditsStream('long'));
  expect(loaded.version).toBe(total);
  expect(openWindow(loaded.state, 'general')!.used).toBe(total);
  await first.append([{ stream: creditsStream('long'), expectedVersion: total, events: [charge(total), charge(total + 1)] }]);
  await first.close();

  const reopened = await openSqliteStore(path);
  const { store, read } = counting(reopened);
  const loader = loaderOver(store);
  const long = await loader.load(creditsDecider, creditsStream('long'));
  expect(long.version).toBe(total + 2);
  expect(openWindow(long.state, 'general')!.used).toBe(total + 2);
  expect(read()).toBe(2);
  expect(read()).toBeLessThan(SNAPSHOT_EVERY);
  const short = await loader.load(creditsDecider, creditsStream('short'));
  expect(short.version).toBe(2);

  // The snapshot agrees with the log.
  const report = await replay(reopened, [{ decider: creditsDecider, prefix: 'credits:' }]);
  expect(report.snapshotsChecked).toBe(1);
  expect(report.mismatches).toEqual([]);
  await reopened.close();
});

it('a snapshot that cannot be written never turns a committed call into an error', async () => {
  // A state holding a function cannot be stored as a snapshot (structured clone refuses it).
  const odd: Decider<{ count: number; format: () => string }, { type: 'Note' }, DomainEvent<'Noted', null>> = {
    name: 'odd.v1',
    initialState: () => ({ count: 0, format: () => 'odd' }),
    decide: () => [{ type: 'Noted', data: null }],
    evolve: (s) => ({ ...s, count: s.count + 1 }),
  };
  const store = await openSqliteStore(join(dir, 'odd.db'));
  await store.append([{ stream: 'odd:1', expectedVersion: 0, events: Array.from({ length: SNAPSHOT_EVERY - 1 }, (_, i) => ({ id: `n${i}`, type: 'Noted', data: null, time: T })) }]);
  await expect(store.writeSnapshot!({ stream: 'odd:1', kind: odd.name, version: 1, state: odd.initialState() })).rejects.toThrow();
  const engine = new Engine({
    store,
    clock: fixedClock(T),
    ids: seededIds(9),
    handlers: { 'core.validate': async (ctx) => ({ body: { count: (await ctx.uow.execute(odd, 'odd:1', { type: 'Note' })).state.count } }) },
  });
  await engine.openAccount({ username: 'odd', api_key: 'odd-key-00000000000000000000000001' });
  const answer = await engine.call({ version: '1.5', endpoint: 'core.validate', credentials: { username: 'odd', apiKey: 'odd-key-00000000000000000000000001' } });
  expect(answer.status).toBe(200);
  expect(await store.readStream('odd:1', SNAPSHOT_EVERY - 1)).toHaveLength(1);
  expect(await store.readSnapshot!('odd:1', odd.name)).toBeUndefined();
  await store.close();
});
