import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { ANY_VERSION, type StoredEvent } from './events.ts';
import type { EventStore } from './event-store.ts';
import { MemoryEventStore } from './memory-store.ts';
import { CATCH_UP_PAGE, Projection, ProjectionKey, Projections } from './projection.ts';

/** Folds `Counted` events: the list it applied, in order. */
class Counted extends Projection {
  readonly types = ['Counted'];
  applied: StoredEvent[] = [];
  protected apply(e: StoredEvent): void {
    this.applied.push(e);
  }
  protected forget(): void {
    this.applied = [];
  }
}

/** A memory store that tells which reads were asked of it and what they answered. */
function spied(inner: EventStore = new MemoryEventStore()) {
  const reads: { method: string; types?: readonly string[]; after: number; answered: StoredEvent[] }[] = [];
  const store: EventStore = Object.assign(Object.create(inner) as EventStore, {
    async readAll(after = 0, limit?: number) {
      const answered = await inner.readAll(after, limit);
      reads.push({ method: 'readAll', after, answered });
      return answered;
    },
    async readTypes(types: readonly string[], after = 0, limit?: number) {
      const answered = await inner.readTypes(types, after, limit);
      reads.push({ method: 'readTypes', types, after, answered });
      return answered;
    },
  });
  return { store, reads };
}

let n = 0;
const append = (store: EventStore, type: string, count = 1) =>
  store.append([{ stream: `s:${n % 3}`, expectedVersion: ANY_VERSION, events: Array.from({ length: count }, () => ({ id: `e${++n}`, type, data: { n }, time: n })) }]);

describe('a projection', () => {
  it('folds the events of its types a store tells it of as they are stored, and no other; its catch-ups read the log as before', async () => {
    const store = new MemoryEventStore({ logged: (e) => e.type !== 'Counted', onStored: (e) => p.heard(e) });
    const p = new Counted(store);
    await append(store, 'Counted', 2);
    await append(store, 'Charged', 3);
    await append(store, 'Counted', 1);
    await p.catchUp();
    expect(p.applied.map((e) => e.type)).toEqual(['Counted', 'Counted', 'Counted']);
    expect(p.applied.map((e) => e.position)).toEqual([1, 2, 6]);
    expect(await p.lag()).toBe(0);
  });

  it('reads only its event types: nothing of the rest of the log reaches it or is asked of the store', async () => {
    const { store, reads } = spied();
    await append(store, 'Charged', 50);
    await append(store, 'Counted', 2);
    await append(store, 'Charged', 30);
    const p = new Counted(store);
    await p.catchUp();
    expect(p.applied.map((e) => e.type)).toEqual(['Counted', 'Counted']);
    expect(reads.every((r) => r.method === 'readTypes' && r.types!.length === 1 && r.types![0] === 'Counted')).toBe(true);
    expect(reads.flatMap((r) => r.answered).every((e) => e.type === 'Counted')).toBe(true);
  });

  it('catches up from its checkpoint without reading again what it has applied', async () => {
    const { store, reads } = spied();
    await append(store, 'Counted', 3);
    await append(store, 'Charged', 4);
    const p = new Counted(store);
    await p.catchUp();
    expect(p.checkpoint).toBe(7);
    reads.length = 0;
    await append(store, 'Counted', 2);
    await append(store, 'Charged', 1);
    await p.catchUp();
    expect(reads.map((r) => r.after)).toEqual([7]);
    expect(reads[0]!.answered.map((e) => e.position)).toEqual([8, 9]);
    expect(p.applied.map((e) => e.position)).toEqual([1, 2, 3, 8, 9]);
    expect(p.checkpoint).toBe(10);
    reads.length = 0;
    await p.catchUp();
    expect(reads.map((r) => [r.after, r.answered.length])).toEqual([[10, 0]]);
  });

  it('reads a long log in pages, each from where the last ended', async () => {
    const { store, reads } = spied();
    await append(store, 'Counted', CATCH_UP_PAGE + 5);
    const p = new Counted(store);
    await p.catchUp();
    expect(p.applied).toHaveLength(CATCH_UP_PAGE + 5);
    expect(reads.map((r) => [r.after, r.answered.length])).toEqual([[0, CATCH_UP_PAGE], [CATCH_UP_PAGE, 5]]);
  });

  it('its lag is the positions written after its checkpoint, and 0 once caught up, whatever type the newest events are', async () => {
    const store = new MemoryEventStore();
    const p = new Counted(store);
    expect(await p.lag()).toBe(0);
    await append(store, 'Counted', 2);
    await append(store, 'Charged', 5);
    expect(await p.lag()).toBe(7);
    await p.catchUp();
    expect(await p.lag()).toBe(0);
    await append(store, 'Charged', 3);
    expect(await p.lag()).toBe(3);
    await p.catchUp();
    expect(await p.lag()).toBe(0);
    expect(p.applied).toHaveLength(2);
  });

  it('a log emptied under it (a reset elsewhere) is read again from the start; reset() forgets at once', async () => {
    const store = new MemoryEventStore();
    const p = new Counted(store);
    await append(store, 'Counted', 4);
    await p.catchUp();
    await store.clear();
    await append(store, 'Counted', 1);
    expect(await p.lag()).toBe(1);
    await p.catchUp();
    expect(p.applied.map((e) => e.position)).toEqual([1]);
    await store.clear();
    await append(store, 'Counted', 6);
    p.reset();
    expect(p.applied).toEqual([]);
    await p.catchUp();
    expect(p.applied.map((e) => e.position)).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it('callers arriving during a catch-up share the next one, which sees what they wrote before asking', async () => {
    const { store, reads } = spied();
    const p = new Counted(store);
    await append(store, 'Counted', 1);
    const first = p.catchUp();
    await append(store, 'Counted', 1);
    const second = p.catchUp();
    const third = p.catchUp();
    expect(third).toBe(second);
    await Promise.all([first, second, third]);
    expect(p.applied.map((e) => e.position)).toEqual([1, 2]);
    expect(reads).toHaveLength(2);
  });

  test.prop([fc.array(fc.oneof(fc.record({ write: fc.constantFrom('Counted', 'Charged'), count: fc.integer({ min: 1, max: 4 }) }), fc.constant('catch up' as const), fc.constant('catch up twice at once' as const)), { maxLength: 25 })])(
    'after any writes and catch-ups, it has applied every event of its types exactly once, in log order, and trails by nothing',
    async (steps) => {
      const store = new MemoryEventStore();
      const p = new Counted(store);
      for (const step of steps) {
        if (step === 'catch up') await p.catchUp();
        else if (step === 'catch up twice at once') await Promise.all([p.catchUp(), p.catchUp()]);
        else await append(store, step.write, step.count);
      }
      await p.catchUp();
      expect(p.applied).toEqual((await store.readAll()).filter((e) => e.type === 'Counted'));
      expect(await p.lag()).toBe(0);
      expect(p.checkpoint).toBe(await store.head());
    },
  );
});

describe("an engine's projections", () => {
  it('gives each projection back by its key, refuses a key it was not given, and lists them all', () => {
    const store = new MemoryEventStore();
    const counted = new Counted(store);
    const COUNTED = new ProjectionKey<Counted>('counted');
    const projections = new Projections().with(COUNTED, counted);
    expect(projections.get(COUNTED)).toBe(counted);
    expect(() => projections.get(new ProjectionKey<Counted>('other'))).toThrow(/No projection other/);
    expect([...projections]).toEqual([counted]);
  });
});
