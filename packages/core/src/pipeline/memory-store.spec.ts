import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { forgettableCharge } from '../accounting/credit-window.ts';
import { createEngine } from '../platform.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import type { StoredEvent } from '../kernel/events.ts';

const ev = (i: number, type = 'Happened') => ({ id: `e${i}`, type, data: { i }, time: i });

describe('a memory store that forgets what snapshots cover', () => {
  // Streams a and b; events of type Keep are never forgotten, snapshots come at random versions.
  const step = fc.oneof(
    fc.record({ kind: fc.constant('append' as const), stream: fc.constantFrom('a', 'b'), keep: fc.boolean() }),
    fc.record({ kind: fc.constant('snapshot' as const), stream: fc.constantFrom('a', 'b') }),
  );
  test.prop([fc.array(step, { maxLength: 300 })])(
    'reads after a snapshot, the whole log of kept events, versions and positions are as without forgetting',
    async (steps) => {
      const plain = new MemoryEventStore();
      const compact = new MemoryEventStore({ compactable: (e) => e.type !== 'Keep' });
      let i = 0;
      const snapped = new Map<string, number>();
      for (const s of steps) {
        if (s.kind === 'append') {
          i++;
          for (const store of [plain, compact]) await store.append([{ stream: s.stream, expectedVersion: -1, events: [ev(i, s.keep ? 'Keep' : 'Happened')] }]);
        } else {
          const version = (await plain.readStream(s.stream)).length;
          snapped.set(s.stream, version);
          for (const store of [plain, compact]) await store.writeSnapshot({ stream: s.stream, kind: 'k', version, state: { version } });
        }
      }
      expect(await compact.head()).toBe(await plain.head());
      for (const stream of ['a', 'b']) {
        const after = snapped.get(stream) ?? 0;
        expect(await compact.readStream(stream, after)).toEqual(await plain.readStream(stream, after));
        const kept = (e: StoredEvent) => e.type === 'Keep' || e.version > after;
        expect((await compact.readStream(stream)).filter(kept)).toEqual((await plain.readStream(stream)).filter(kept));
      }
      const all = await plain.readAll();
      const held = await compact.readAll();
      expect(held).toEqual(all.filter((e) => held.some((h) => h.position === e.position)));
      expect(all.filter((e) => e.type === 'Keep').every((e) => held.some((h) => h.position === e.position))).toBe(true);
      for (const from of [0, 3, 17, all.length]) expect(await compact.readAll(from, 5)).toEqual(held.filter((e) => e.position > from).slice(0, 5));
      // Reads by type hold what the log holds of those types: every Keep, and no forgotten event.
      for (const from of [0, 3, 17]) {
        expect(await compact.readTypes(['Keep'], from, 7)).toEqual(held.filter((e) => e.type === 'Keep' && e.position > from).slice(0, 7));
        expect(await compact.readTypes(['Happened', 'Keep'], from, 9)).toEqual(held.filter((e) => e.position > from).slice(0, 9));
      }
    },
  );

  test.prop([fc.array(step, { maxLength: 300 })])(
    'a store that logs only kept events and tells of every one: the log holds exactly the kept ones, each read from its own position on, and the listener hears everything in order',
    async (steps) => {
      const plain = new MemoryEventStore();
      const heard: StoredEvent[] = [];
      const store = new MemoryEventStore({ compactable: (e) => e.type !== 'Keep', logged: (e) => e.type === 'Keep', onStored: (e) => heard.push(e) });
      let i = 0;
      for (const s of steps) {
        if (s.kind === 'append') {
          i++;
          for (const st of [plain, store]) await st.append([{ stream: s.stream, expectedVersion: -1, events: [ev(i, s.keep ? 'Keep' : 'Happened')] }]);
        } else {
          const version = (await plain.readStream(s.stream)).length;
          for (const st of [plain, store]) await st.writeSnapshot({ stream: s.stream, kind: 'k', version, state: { version } });
        }
      }
      const all = await plain.readAll();
      expect(heard).toEqual(all);
      const keep = all.filter((e) => e.type === 'Keep');
      expect(await store.readAll()).toEqual(keep);
      // What a log reader checks on its next read: the event it stopped at is still there.
      for (const e of keep) expect((await store.readAll(e.position - 1, 1))[0]).toEqual(e);
      expect(await store.head()).toBe(await plain.head());
    },
  );

  test.prop([fc.array(fc.record({ stream: fc.constantFrom('a', 'b'), big: fc.boolean(), logged: fc.boolean() }), { maxLength: 200 })])(
    'a store that holds some events in another form: the listener hears each whole, the streams and the log hold the held form, at the same versions and positions',
    async (steps) => {
      const heard: StoredEvent[] = [];
      const slim = (e: StoredEvent): StoredEvent => (e.type === 'Big' ? { ...e, data: { slim: true } } : e);
      const plain = new MemoryEventStore({ logged: (e) => (e.data as { logged: boolean }).logged });
      const store = new MemoryEventStore({ logged: (e) => (e.data as { logged: boolean }).logged, heldAs: slim, onStored: (e) => heard.push(e) });
      let i = 0;
      for (const s of steps) {
        i++;
        const event = { id: `e${i}`, type: s.big ? 'Big' : 'Small', data: { i, logged: s.logged }, time: i };
        for (const st of [plain, store]) {
          // Each write names the event it follows, as a pipelined engine does: the held form keeps its id.
          const last = (await st.readStream(s.stream)).at(-1);
          await st.append([{ stream: s.stream, expectedVersion: last?.version ?? 0, ...(last ? { expectedLastId: last.id } : {}), events: [event] }]);
        }
      }
      const whole = [...(await plain.readStream('a')), ...(await plain.readStream('b'))].sort((x, y) => x.position - y.position);
      expect(heard).toEqual(whole);
      for (const stream of ['a', 'b']) expect(await store.readStream(stream)).toEqual((await plain.readStream(stream)).map(slim));
      expect(await store.readAll()).toEqual((await plain.readAll()).map(slim));
      expect(await store.readTypes(['Big'])).toEqual((await plain.readTypes(['Big'])).map(slim));
      expect(await store.head()).toBe(await plain.head());
    },
  );

  it('stays bounded over many calls: the charges a snapshot covers are forgotten, the figures of the window stay exact', async () => {
    const store = new MemoryEventStore({ compactable: forgettableCharge });
    const engine = createEngine({ store, clock: { now: () => Date.parse('2026-03-02T08:00:00Z') }, ids: seededIds(4), settings: {} });
    await engine.openAccount({ username: 'alice', api_key: 'alice-key-0001', package: { credits_per_hour: 1e12 } });
    const calls = 5000;
    for (let k = 0; k < calls; k++) {
      const a = await engine.call({ version: '1.5', endpoint: 'core.balance', credentials: { username: 'alice', apiKey: 'alice-key-0001' }, params: {} });
      expect(a.status).toBe(200);
    }
    expect(await store.head()).toBeGreaterThan(calls);
    // At most one snapshot interval (500) of charges is held, plus the account's own events.
    expect((await store.readAll()).length).toBeLessThan(600);
    const balance = await engine.call({ version: '1.5', endpoint: 'core.balance', credentials: { username: 'alice', apiKey: 'alice-key-0001' }, params: {} });
    expect(Number(balance.rate!.limit) - Number(balance.rate!.remaining)).toBe((calls + 1) * balance.rate!.cost);
  });
});
