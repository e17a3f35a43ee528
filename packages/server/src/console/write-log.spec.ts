import { describe, expect, it } from 'vitest';
import { ManualClock } from '@sdp/clock';
import { MemoryEventStore, type NewEvent } from '@sdp/core/kernel';
import { recordWrites, WriteLog } from './write-log.ts';

const T0 = Date.parse('2026-03-02T08:05:37Z');
let n = 0;
const event = (time: number): NewEvent => ({ id: `e${++n}`, type: 'Something', data: {}, time });

function setup() {
  const store = new MemoryEventStore();
  const clock = new ManualClock(T0);
  const log = new WriteLog();
  recordWrites(store, clock, log);
  return { store, clock, log };
}

/** Commit notices come a turn after the writes they tell of. */
const noticed = () => new Promise((r) => setImmediate(r));

describe('the write log', () => {
  it("records each append's position range, and answers the ones ending after a position", async () => {
    const { store, log } = setup();
    await store.append([{ stream: 'credits:u', expectedVersion: -1, events: [event(T0)] }, { stream: 'recordings:u', expectedVersion: -1, events: [event(T0), event(T0)] }]);
    await store.append([{ stream: 'tasks:u', expectedVersion: -1, events: [event(T0)] }]);
    await store.append([{ stream: 'tasks:u', expectedVersion: -1, events: [event(T0)] }]);
    await noticed();
    expect(log.between(0)).toEqual([[1, 3], [4, 4], [5, 5]]);
    expect(log.between(3)).toEqual([[4, 4], [5, 5]]);
    expect(log.between(2, 4)).toEqual([[1, 3], [4, 4]]);
    expect(log.between(5)).toEqual([]);
  });

  it('leaves out batches that carry other times than the clock\'s (an import of an old log)', async () => {
    const { store, log } = setup();
    await store.append([{ stream: 'a:u', expectedVersion: -1, events: [event(T0 - 86_400_000), event(T0 - 86_400_000)] }]);
    await store.append([{ stream: 'b:u', expectedVersion: -1, events: [event(T0), event(T0 - 1)] }]);
    await store.append([{ stream: 'c:u', expectedVersion: -1, events: [event(T0)] }]);
    await noticed();
    expect(log.between(0)).toEqual([[5, 5]]);
  });

  it('starts over when the server empties the store, and when positions start again', async () => {
    const { store, log } = setup();
    await store.append([{ stream: 'a:u', expectedVersion: -1, events: [event(T0), event(T0)] }]);
    await noticed();
    await store.clear();
    log.forget();
    expect(log.between(0)).toEqual([]);
    await store.append([{ stream: 'a:u', expectedVersion: -1, events: [event(T0)] }]);
    await noticed();
    expect(log.between(0)).toEqual([[1, 1]]);
    log.record(3, 4);
    log.record(2, 2);
    expect(log.between(0)).toEqual([[1, 1], [2, 2]]);
  });
});
