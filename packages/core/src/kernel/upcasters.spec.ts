import { describe, expect, it } from 'vitest';
import { AggregateLoader, SNAPSHOT_EVERY } from './aggregates.ts';
import type { Decider, DomainEvent } from './decider.ts';
import type { StoredEvent } from './events.ts';
import { evolvingStore } from './evolving-store.ts';
import { MemoryEventStore } from './memory-store.ts';
import { EventFromNewerSchema, Upcasters } from './upcasters.ts';

const stored = (type: string, data: unknown, schemaVersion: number, version = 1): StoredEvent => ({
  id: `e${version}`, stream: 's', version, position: version, time: 0, type, data, schemaVersion,
});

// Counted v1 {n}; v2 {count}; v3 {count, unit}.
const counted = () =>
  new Upcasters()
    .register('Counted', 1, (d: { n: number }) => ({ count: d.n }))
    .register('Counted', 2, (d: { count: number }) => ({ ...d, unit: 'item' }));

describe('upcasters', () => {
  it('chains an old event through every step to its type\'s current version, leaving the event read as it was', () => {
    const up = counted();
    const old = stored('Counted', Object.freeze({ n: 4 }), 1);
    expect(up.currentVersion('Counted')).toBe(3);
    expect(up.upcast(old)).toEqual({ ...old, data: { count: 4, unit: 'item' }, schemaVersion: 3 });
    expect(up.upcast(stored('Counted', { count: 5 }, 2)).data).toEqual({ count: 5, unit: 'item' });
    expect(old.data).toEqual({ n: 4 });
  });

  it('answers the very array it was given when every event is current (no copy on the common read)', () => {
    const events = [stored('Counted', { count: 1, unit: 'item' }, 3), stored('Other', {}, 1, 2)];
    expect(counted().upcastAll(events)).toBe(events);
    const mixed = [events[0]!, stored('Counted', { n: 2 }, 1, 2)];
    expect(counted().upcastAll(mixed).map((e) => e.data)).toEqual([{ count: 1, unit: 'item' }, { count: 2, unit: 'item' }]);
  });

  it('refuses an event from a newer schema than it knows, naming it', () => {
    expect(() => counted().upcast(stored('Counted', {}, 4))).toThrow(EventFromNewerSchema);
    expect(() => new Upcasters().upcastAll([stored('Counted', {}, 2)])).toThrow(/Counted at s version 1 has schema version 2, newer than this build knows \(1\)/);
  });

  it('takes steps in order from version 1, each once', () => {
    expect(() => new Upcasters().register('T', 2, (d) => d)).toThrow(/register the upcaster from version 1 before the one from 2/);
    expect(() => new Upcasters().register('T', 1, (d) => d).register('T', 1, (d) => d)).toThrow(/already has an upcaster from version 1/);
    const base = new Upcasters().register('T', 1, (d) => d);
    const extended = new Upcasters(base).register('U', 1, (d) => d);
    expect([base.signature(), extended.signature()]).toEqual(['T@2', 'T@2,U@2']);
    expect(new Upcasters().signature()).toBe('');
  });

  it('stamps new events without a schema version with their type\'s current one, and keeps a given one', () => {
    const batch = [{ stream: 's', expectedVersion: 0, events: [{ id: 'a', type: 'Counted', data: {}, time: 0 }, { id: 'b', type: 'Counted', data: {}, time: 0, schemaVersion: 1 }, { id: 'c', type: 'Other', data: {}, time: 0 }] }];
    expect(counted().stamp(batch)[0]!.events.map((e) => e.schemaVersion)).toEqual([3, 1, undefined]);
    expect(new Upcasters().stamp(batch)).toBe(batch);
    const charge = { stream: 'c', expectedVersion: 0, events: [{ id: 'd', type: 'Other', data: {}, time: 0 }] };
    expect(counted().stamp([charge])[0]).toBe(charge);
    const mixed = counted().stamp([charge, ...batch]);
    expect(mixed[0]).toBe(charge);
    expect(mixed[1]!.events.map((e) => e.schemaVersion)).toEqual([3, 1, undefined]);
  });

  it('refuses to write a schema version it could not read back (not a whole number from 1, or newer than its own), writing nothing', async () => {
    const store = new MemoryEventStore();
    const seen = evolvingStore(store, counted());
    for (const [type, v] of [['Counted', 0], ['Counted', -1], ['Counted', 1.5], ['Counted', 4], ['Other', 2]] as const) {
      const write = seen.append([{ stream: 's', expectedVersion: 0, events: [{ id: 'x', type, data: {}, time: 0, schemaVersion: v }] }]);
      await expect(write).rejects.toThrow(RangeError);
      await expect(write).rejects.toThrow(new RegExp(`names schema version ${String(v).replace('.', '\\.')}; this build reads 1 to`));
    }
    expect(await store.head()).toBe(0);
    // Every version it reads is written, the old ones included (an import keeps each event's own).
    await seen.append([{ stream: 's', expectedVersion: 0, events: [1, 2, 3].map((v) => ({ id: `v${v}`, type: 'Counted', data: v === 1 ? { n: 1 } : { count: 1 }, time: 0, schemaVersion: v })) }]);
    expect((await seen.readAll()).map((e) => e.schemaVersion)).toEqual([3, 3, 3]);
  });

  it('keeps snapshots per schema: a state folded before an upcaster existed is not loaded after it', async () => {
    const written = new MemoryEventStore();
    const summed: Decider<number, never, DomainEvent> = {
      name: 'summed.v1',
      initialState: () => 0,
      decide: () => [],
      evolve: (s, e) => s + ((e.data as { count?: number; n?: number }).count ?? 0),
    };
    // Before: Counted carried {n}, which this fold did not read (a bug the upcaster fixes).
    await written.append([{ stream: 's', expectedVersion: 0, events: Array.from({ length: SNAPSHOT_EVERY }, (_, i) => ({ id: `e${i}`, type: 'Counted', data: { n: 1 }, time: 0 })) }]);
    const before = new Upcasters();
    expect((await new AggregateLoader(evolvingStore(written, before)).load(summed, 's')).state).toBe(0);
    expect(await evolvingStore(written, before).readSnapshot!('s', 'summed.v1')).toMatchObject({ version: SNAPSHOT_EVERY, state: 0 });
    const after = new Upcasters().register('Counted', 1, (d: { n: number }) => ({ count: d.n }));
    expect(await evolvingStore(written, after).readSnapshot!('s', 'summed.v1')).toBeUndefined();
    expect((await new AggregateLoader(evolvingStore(written, after)).load(summed, 's')).state).toBe(SNAPSHOT_EVERY);
    expect(await evolvingStore(written, after).readSnapshot!('s', 'summed.v1')).toMatchObject({ kind: 'summed.v1', state: SNAPSHOT_EVERY });
  });

  it('states the capabilities of the store it wraps', () => {
    const inner = new MemoryEventStore();
    expect(evolvingStore(inner, counted()).capabilities).toBe(inner.capabilities);
    const remote = Object.assign(Object.create(inner) as MemoryEventStore, { capabilities: { ...inner.capabilities, reach: 'network' } });
    expect(evolvingStore(remote, counted()).capabilities.reach).toBe('network');
    const up = counted();
    const once = evolvingStore(new MemoryEventStore(), up);
    expect(evolvingStore(once, up)).toBe(once);
  });
});
