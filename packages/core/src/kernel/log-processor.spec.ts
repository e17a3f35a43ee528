import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { ANY_VERSION, type StoredEvent } from './events.ts';
import { LogProcessor } from './log-processor.ts';
import { MemoryEventStore } from './memory-store.ts';

const event = (n: number, type = 'Happened') => ({ id: `lp-${n}`, type, data: { n }, time: n });
let serial = 0;
const append = async (store: MemoryEventStore, ...types: string[]) => {
  for (const type of types) await store.append([{ stream: `s${serial % 3}`, expectedVersion: ANY_VERSION, events: [event(serial++, type)] }]);
};

describe('the log processor', () => {
  it('pulls from its checkpoint to the head, in pages, only its types; a second pull reads only what is new', async () => {
    const store = new MemoryEventStore();
    await append(store, 'A', 'B', 'A', 'A', 'B');
    const handed: StoredEvent[][] = [];
    const p = new LogProcessor(store, (page) => void handed.push(page), { types: ['A'], after: 0, pageSize: 2 });
    await p.catchUp();
    expect(handed.map((page) => page.map((e) => e.position))).toEqual([[1, 3], [4]]);
    expect(p.position).toBe(4);
    await append(store, 'B', 'A');
    await p.catchUp();
    expect(handed.flat().map((e) => e.position)).toEqual([1, 3, 4, 7]);
  });

  it('shares one read between callers arriving while it runs: nothing is handed over twice', async () => {
    const store = new MemoryEventStore();
    await append(store, 'A', 'A', 'A');
    const seen: number[] = [];
    const p = new LogProcessor(store, (page) => void seen.push(...page.map((e) => e.position)), { after: 0 });
    await Promise.all([p.catchUp(), p.catchUp(), p.catchUp()]);
    expect(seen).toEqual([1, 2, 3]);
  });

  it('starting at the head hands over only what commits afterwards', async () => {
    const store = new MemoryEventStore();
    await append(store, 'A', 'A');
    const seen: number[] = [];
    const p = new LogProcessor(store, (page) => void seen.push(...page.map((e) => e.position)));
    await p.catchUp();
    expect(seen).toEqual([]);
    await append(store, 'A');
    await p.catchUp();
    expect(seen).toEqual([3]);
  });

  it('a log cleared and written past the checkpoint again is noticed by its event check, and read from the start', async () => {
    const store = new MemoryEventStore();
    await append(store, 'A', 'A');
    let cleared = 0;
    const seen: number[] = [];
    const p = new LogProcessor(store, (page) => void seen.push(...page.map((e) => e.position)), { after: 0, resetCheck: 'event', onCleared: () => cleared++ });
    await p.catchUp();
    await store.clear();
    await append(store, 'A', 'A', 'A');
    await p.catchUp();
    expect(cleared).toBe(1);
    expect(seen).toEqual([1, 2, 1, 2, 3]);
  });

  test.prop([fc.array(fc.constantFrom('A', 'B', 'C'), { maxLength: 40 }), fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 5 }), fc.integer({ min: 1, max: 7 })], { numRuns: 50 })(
    'whatever the pulls and page size, each event of its types is handed over exactly once, in position order',
    async (types, cuts, pageSize) => {
      const store = new MemoryEventStore();
      const p = new LogProcessor(store, (page) => void seen.push(...page.map((e) => e.position)), { types: ['A', 'C'], after: 0, pageSize });
      const seen: number[] = [];
      let written = 0;
      for (const cut of [...cuts, types.length]) {
        const next = types.slice(written, Math.max(written, cut));
        if (next.length > 0) await append(store, ...next);
        written += next.length;
        await p.catchUp();
      }
      const want = types.flatMap((t, i) => (t === 'B' ? [] : [i + 1]));
      expect(seen).toEqual(want);
    },
  );
});
