import { describe, expect, it } from 'vitest';
import { appendsAtOnce, type EventStore } from './event-store.ts';
import type { AppendResult, StreamAppend } from './events.ts';
import { EvolvingStore, evolvingStore } from './evolving-store.ts';
import { MemoryEventStore } from './memory-store.ts';
import { Upcasters } from './upcasters.ts';
import { VersionConflict } from './version-conflict.ts';

const ev = (i: number) => ({ id: `e${i}`, type: 'Happened', data: { i }, time: i });

describe('appendNow: the append of a store that writes within the call, as a value', () => {
  it('writes what append writes, answers what append answers, and refuses by throwing what append rejects with', async () => {
    const now = new MemoryEventStore();
    const later = new MemoryEventStore();
    const batches: StreamAppend[][] = [
      [{ stream: 'a', expectedVersion: 0, events: [ev(1), ev(2)] }],
      [{ stream: 'b', expectedVersion: 0, events: [ev(3)] }, { stream: 'a', expectedVersion: 2, events: [] }],
      [{ stream: 'a', expectedVersion: 2, expectedLastId: 'e2', events: [ev(4)] }],
    ];
    for (const batch of batches) expect(now.appendNow(batch)).toEqual(await later.append(batch));
    const stale: StreamAppend[] = [{ stream: 'a', expectedVersion: 1, events: [ev(5)] }];
    expect(() => now.appendNow(stale)).toThrow(VersionConflict);
    await expect(later.append(stale)).rejects.toThrow(VersionConflict);
    expect(await now.readAll()).toEqual(await later.readAll());
  });

  it('is used only where append is still its own: a subclass or a wrapper that replaces append is written through append', () => {
    const memory = new MemoryEventStore();
    expect(appendsAtOnce(memory)).toBeTypeOf('function');
    class Gated extends MemoryEventStore {
      override append(batch: StreamAppend[]): Promise<AppendResult> {
        return super.append(batch);
      }
    }
    expect(appendsAtOnce(new Gated())).toBeUndefined();
    const wrapped = Object.create(memory) as EventStore;
    wrapped.append = (batch) => memory.append(batch);
    expect(appendsAtOnce(wrapped)).toBeUndefined();
    expect(appendsAtOnce({ ...memory, append: memory.append.bind(memory) } as unknown as EventStore)).toBeUndefined();
  });

  it('is not used through a Proxy whose get trap answers its own append (a test gate, a meter): every write goes through that append', () => {
    const memory = new MemoryEventStore();
    const seen: StreamAppend[][] = [];
    const metered = new Proxy(memory, {
      get(target, name, receiver) {
        if (name === 'append') return (batch: StreamAppend[]) => (seen.push(batch), target.append(batch));
        const value = Reflect.get(target, name, receiver) as unknown;
        return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
      },
    });
    expect(appendsAtOnce(metered)).toBeUndefined();
    // A Proxy that passes every member on, bound, is written through append too: nothing tells it apart.
    const passing = new Proxy(memory, { get: (target, name) => { const v = Reflect.get(target, name) as unknown; return typeof v === 'function' ? (v as () => unknown).bind(target) : v; } });
    expect(appendsAtOnce(passing)).toBeUndefined();
  });

  it('a subclass of the event schema view that replaces append is written through it', () => {
    const upcasters = new Upcasters();
    class Metered extends EvolvingStore {
      override append(batch: StreamAppend[]): Promise<AppendResult> {
        return super.append(batch);
      }
    }
    expect(appendsAtOnce(new Metered(new MemoryEventStore(), upcasters))).toBeUndefined();
    expect(appendsAtOnce(new EvolvingStore(new MemoryEventStore(), upcasters))).toBeTypeOf('function');
  });

  it('the event schema passes it on, stamping as append stamps, only over a store that has it', async () => {
    const upcasters = new Upcasters();
    const inner = new MemoryEventStore();
    const store = evolvingStore(inner, upcasters);
    const now = appendsAtOnce(store);
    expect(now).toBeTypeOf('function');
    now!([{ stream: 'a', expectedVersion: 0, events: [ev(1)] }]);
    await store.append([{ stream: 'a', expectedVersion: 1, events: [ev(2)] }]);
    const [first, second] = await inner.readStream('a');
    expect(first!.schemaVersion).toBe(second!.schemaVersion);
    class Gated extends MemoryEventStore {
      override append(batch: StreamAppend[]): Promise<AppendResult> {
        return super.append(batch);
      }
    }
    expect(appendsAtOnce(evolvingStore(new Gated(), upcasters))).toBeUndefined();
  });
});
