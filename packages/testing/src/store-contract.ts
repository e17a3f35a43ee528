import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DEFAULT_PACKAGE, Engine, PLATFORM_AGGREGATES, createEngine, platformUpcasters } from '@sdp/core';
import { hashApiKey } from '@sdp/core/deciders';
import {
  ANY_VERSION,
  fixedClock,
  seededIds,
  Upcasters,
  VersionConflict,
  evolvingStore,
  replay,
  type Decider,
  type DomainEvent,
  type EventStore,
  type NewEvent,
  type StoredEvent,
} from '@sdp/core/kernel';
import { commitObserverContract } from './commit-observer-contract.ts';
import { appendGoldenLog, expectedState, goldenLogs } from './golden-logs.ts';

/** The engine's own load path over `store` (its aggregate cache and snapshots), through `upcasters` when given. */
function loaderOf(store: EventStore, upcasters?: Upcasters) {
  return new Engine({ store, clock: fixedClock(0), ids: seededIds(1), ...(upcasters ? { upcasters } : {}) }).loader;
}

export interface StoreContractOptions {
  /** Tests that write a lot (1 MB payloads, thousands of streams) get this long (ms). */
  slowTimeoutMs?: number;
  /**
   * Opens a second handle on the store's data, as another process would (a SQLite file, a PostgreSQL
   * schema): the commit observer must hear that handle's commits too. Left out for a store only one
   * process can write (memory).
   */
  opensAgain?: (store: EventStore) => Promise<EventStore>;
}

let counter = 0;
/** An event ready to append, with a unique id. */
export function newEvent(type = 'Happened', data: unknown = { n: counter }, time = 1_700_000_000_000 + counter): NewEvent {
  counter++;
  return { id: `ev-${process.pid}-${counter}`, type, data, time };
}

const events = (n: number, type = 'Happened'): NewEvent[] => Array.from({ length: n }, (_, i) => newEvent(type, { i }));

async function conflictOf(promise: Promise<unknown>): Promise<VersionConflict> {
  try {
    await promise;
  } catch (error) {
    expect(error).toBeInstanceOf(VersionConflict);
    return error as VersionConflict;
  }
  throw new Error('expected a VersionConflict, the append succeeded');
}

/**
 * The contract every `EventStore` keeps, as vitest tests. Each adapter's spec calls it with a factory
 * that returns an empty store; the store is closed after each test.
 */
export function storeContract(name: string, factory: () => Promise<EventStore>, options: StoreContractOptions = {}): void {
  const slow = options.slowTimeoutMs ?? 60_000;
  describe(`${name} keeps the event store contract`, () => {
    let store: EventStore;
    beforeEach(async () => {
      store = await factory();
    });
    afterEach(async () => {
      await store.close();
    });

    it('starts empty', async () => {
      expect(await store.head()).toBe(0);
      expect(await store.readAll()).toEqual([]);
      expect(await store.readStream('nothing:here')).toEqual([]);
    });

    it('appends to a new stream expecting version 0 and gives back every field', async () => {
      const e = newEvent('Opened', { name: 'ada', nested: { list: [1, 2, { deep: true }], none: null } }, 1_700_000_123_456);
      const result = await store.append([{ stream: 'account:ada', expectedVersion: 0, events: [e] }]);
      expect(result).toEqual({ versions: [1], lastPosition: 1 });
      const [stored] = await store.readStream('account:ada');
      expect(stored).toEqual({ ...e, stream: 'account:ada', version: 1, position: 1, schemaVersion: 1 } satisfies StoredEvent);
      expect(await store.head()).toBe(1);
    });

    it('appends to several streams in one atomic write, versions in request order', async () => {
      await store.append([{ stream: 'b', expectedVersion: 0, events: events(2) }]);
      const result = await store.append([
        { stream: 'a', expectedVersion: 0, events: events(3) },
        { stream: 'b', expectedVersion: 2, events: events(1) },
        { stream: 'c', expectedVersion: ANY_VERSION, events: events(2) },
      ]);
      expect(result).toEqual({ versions: [3, 3, 2], lastPosition: 8 });
      const all = await store.readAll();
      expect(all.map((e) => [e.position, e.stream, e.version])).toEqual([
        [1, 'b', 1], [2, 'b', 2], [3, 'a', 1], [4, 'a', 2], [5, 'a', 3], [6, 'b', 3], [7, 'c', 1], [8, 'c', 2],
      ]);
    });

    it('on a conflict writes nothing at all and names the stream that conflicted', async () => {
      await store.append([{ stream: 'a', expectedVersion: 0, events: events(2) }]);
      await store.append([{ stream: 'b', expectedVersion: 0, events: events(1) }]);
      const conflict = await conflictOf(
        store.append([
          { stream: 'a', expectedVersion: 2, events: events(1) },
          { stream: 'new', expectedVersion: 0, events: events(1) },
          { stream: 'b', expectedVersion: 0, events: events(1) },
        ]),
      );
      expect(conflict.stream).toBe('b');
      expect(conflict.expected).toBe(0);
      expect(conflict.actual).toBe(1);
      expect(await store.head()).toBe(3);
      expect(await store.readStream('a')).toHaveLength(2);
      expect(await store.readStream('new')).toEqual([]);
    });

    it('expecting 0 fails on a stream that has events; ANY_VERSION never conflicts', async () => {
      await store.append([{ stream: 's', expectedVersion: 0, events: events(1) }]);
      const conflict = await conflictOf(store.append([{ stream: 's', expectedVersion: 0, events: events(1) }]));
      expect(conflict.actual).toBe(1);
      expect((await conflictOf(store.append([{ stream: 's', expectedVersion: 5, events: events(1) }]))).actual).toBe(1);
      expect(await store.append([{ stream: 's', expectedVersion: ANY_VERSION, events: events(2) }])).toEqual({ versions: [3], lastPosition: 3 });
    });

    it('an entry with no events still checks its expected version (a read guard)', async () => {
      await store.append([{ stream: 'guard', expectedVersion: 0, events: events(1) }]);
      expect(await store.append([
        { stream: 'guard', expectedVersion: 1, events: [] },
        { stream: 'other', expectedVersion: 0, events: events(1) },
      ])).toEqual({ versions: [1, 1], lastPosition: 2 });
      await conflictOf(store.append([{ stream: 'guard', expectedVersion: 0, events: [] }, { stream: 'other', expectedVersion: 1, events: events(1) }]));
      expect(await store.head()).toBe(2);
      expect(await store.append([{ stream: 'guard', expectedVersion: 1, events: [] }])).toEqual({ versions: [1], lastPosition: 2 });
    });

    it('states what it can do in its capabilities record, and does it: fresh reads are new objects each time; a store other processes reach keeps their host records', async () => {
      const c = store.capabilities;
      expect(c.kind).toMatch(/\S/);
      expect(['process', 'machine', 'network']).toContain(c.reach);
      if (c.reach !== 'process') expect(c.hostRecords).toBeDefined();
      await store.append([{ stream: 'fresh', expectedVersion: 0, events: events(1) }]);
      const [once, again] = [await store.readStream('fresh'), await store.readStream('fresh')];
      expect(again).toEqual(once);
      if (c.freshReads) expect(again[0]).not.toBe(once[0]);
    });

    it("a store that checks last event ids fails an append whose stream ends in another writer's event at the expected version", async (ctx) => {
      if (!store.capabilities.checksLastEventId) return ctx.skip();
      const [mine, theirs] = [newEvent(), newEvent()];
      await store.append([{ stream: 'pending', expectedVersion: 0, events: [theirs] }]);
      // Decided on a write of the same version that never landed: the version matches, the event does not.
      const conflict = await conflictOf(
        store.append([
          { stream: 'pending', expectedVersion: 1, expectedLastId: mine.id, events: events(1) },
          { stream: 'beside', expectedVersion: 0, events: events(1) },
        ]),
      );
      expect(conflict.stream).toBe('pending');
      expect(await store.head()).toBe(1);
      // A guard (no events) is checked the same way; the right id passes, with and without events.
      await conflictOf(store.append([{ stream: 'pending', expectedVersion: 1, expectedLastId: mine.id, events: [] }]));
      expect(await store.append([{ stream: 'pending', expectedVersion: 1, expectedLastId: theirs.id, events: [] }])).toEqual({ versions: [1], lastPosition: 1 });
      const next = newEvent();
      expect(await store.append([{ stream: 'pending', expectedVersion: 1, expectedLastId: theirs.id, events: [next] }])).toEqual({ versions: [2], lastPosition: 2 });
      // Two appends of one group, the second expecting the first's event (a pipelined lane's writes).
      const after = newEvent();
      const [first, second] = await Promise.all([
        store.append([{ stream: 'pending', expectedVersion: 2, expectedLastId: next.id, events: [after] }]),
        store.append([{ stream: 'pending', expectedVersion: 3, expectedLastId: after.id, events: events(1) }]),
      ]);
      expect([first.versions, second.versions]).toEqual([[3], [4]]);
    });

    it('appendNow, where the store has it, is append answered as a value: written as append writes, a refusal thrown at once, nothing written', async () => {
      if (typeof store.appendNow !== 'function') return;
      const heard: number[] = [];
      const stop = store.watchCommits(() => heard.push(1));
      try {
        const result = store.appendNow([{ stream: 'now:a', expectedVersion: 0, events: events(2) }, { stream: 'now:b', expectedVersion: ANY_VERSION, events: events(1) }]);
        // The engine hands the value on as the write's result: a promise here would be read as one.
        expect(result).not.toBeInstanceOf(Promise);
        expect(result).toEqual({ versions: [2, 1], lastPosition: 3 });
        expect(await store.append([{ stream: 'now:a', expectedVersion: 2, events: events(1) }])).toEqual({ versions: [3], lastPosition: 4 });
        let thrown: unknown;
        try {
          store.appendNow([{ stream: 'now:b', expectedVersion: 1, events: events(1) }, { stream: 'now:a', expectedVersion: 2, events: events(1) }]);
        } catch (error) {
          thrown = error;
        }
        expect(thrown).toBeInstanceOf(VersionConflict);
        expect(await store.head()).toBe(4);
        expect((await store.readAll()).map((e) => [e.stream, e.version, e.position])).toEqual([['now:a', 1, 1], ['now:a', 2, 2], ['now:b', 1, 3], ['now:a', 3, 4]]);
        await new Promise((resolve) => setTimeout(resolve, 20));
        // Readers following the log hear a write made at once as they hear any other.
        expect(heard.length).toBeGreaterThan(0);
      } finally {
        stop();
      }
    });

    it('refuses a stream named twice in one append, writing nothing', async () => {
      await expect(store.append([
        { stream: 'twice', expectedVersion: 0, events: events(1) },
        { stream: 'twice', expectedVersion: 1, events: events(1) },
      ])).rejects.toThrow(/twice/);
      expect(await store.head()).toBe(0);
    });

    it('reads a stream after a version, in version order', async () => {
      for (let i = 0; i < 5; i++) {
        await store.append([{ stream: 'x', expectedVersion: i, events: events(1) }, { stream: `y${i}`, expectedVersion: 0, events: events(1) }]);
      }
      expect((await store.readStream('x')).map((e) => e.version)).toEqual([1, 2, 3, 4, 5]);
      expect((await store.readStream('x', 3)).map((e) => e.version)).toEqual([4, 5]);
      expect(await store.readStream('x', 5)).toEqual([]);
      expect(await store.readStream('x', 99)).toEqual([]);
      expect((await store.readStream('x')).map((e) => e.position)).toEqual([1, 3, 5, 7, 9]);
    });

    it('reads all in global order from a position with a limit', async () => {
      for (let i = 0; i < 10; i++) await store.append([{ stream: `s${i % 3}`, expectedVersion: ANY_VERSION, events: events(1) }]);
      expect((await store.readAll()).map((e) => e.position)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect((await store.readAll(4, 3)).map((e) => e.position)).toEqual([5, 6, 7]);
      expect((await store.readAll(8, 100)).map((e) => e.position)).toEqual([9, 10]);
      expect(await store.readAll(10)).toEqual([]);
      expect(await store.readAll(0, 0)).toEqual([]);
      // Paging through covers the log exactly once.
      const seen: number[] = [];
      for (let at = 0; ; ) {
        const page = await store.readAll(at, 4);
        if (page.length === 0) break;
        seen.push(...page.map((e) => e.position));
        at = page[page.length - 1]!.position;
      }
      expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
      expect(await store.head()).toBe(10);
    });

    it('reads only the named event types, in global order from a position with a limit', async () => {
      const kinds = ['Charged', 'Recorded', 'Charged', 'Opened', 'Charged', 'Recorded', 'Charged', 'Charged', 'Recorded', 'Opened'];
      for (const [i, type] of kinds.entries()) await store.append([{ stream: `s${i % 3}`, expectedVersion: ANY_VERSION, events: [newEvent(type, { i })] }]);
      const recorded = await store.readTypes(['Recorded']);
      expect(recorded.map((e) => [e.position, e.type, e.stream, e.version])).toEqual([[2, 'Recorded', 's1', 1], [6, 'Recorded', 's2', 2], [9, 'Recorded', 's2', 3]]);
      expect(recorded).toEqual((await store.readAll()).filter((e) => e.type === 'Recorded'));
      expect((await store.readTypes(['Recorded', 'Opened'], 2, 2)).map((e) => e.position)).toEqual([4, 6]);
      expect((await store.readTypes(['Opened', 'Recorded'], 6)).map((e) => e.position)).toEqual([9, 10]);
      expect(await store.readTypes(['Recorded'], 9)).toEqual([]);
      expect(await store.readTypes(['Nothing'])).toEqual([]);
      expect(await store.readTypes([])).toEqual([]);
      expect(await store.readTypes(['Recorded'], 0, 0)).toEqual([]);
      // Any types, from any position, with any limit: exactly the log's events of those types, in order.
      const all = await store.readAll();
      await fc.assert(
        fc.asyncProperty(fc.subarray(['Charged', 'Recorded', 'Opened', 'Nothing']), fc.integer({ min: 0, max: 11 }), fc.integer({ min: 1, max: 12 }), async (types, after, limit) => {
          const expected = all.filter((e) => types.includes(e.type) && e.position > after).slice(0, limit);
          expect(await store.readTypes(types, after, limit)).toEqual(expected);
        }),
        { numRuns: 30 },
      );
    });

    it('concurrent appenders on one stream lose nothing and duplicate nothing; versions stay dense', async () => {
      const workers = 8;
      const each = 10;
      let conflicts = 0;
      const worker = async (w: number): Promise<void> => {
        for (let i = 0; i < each; ) {
          const version = (await store.readStream('hot')).length;
          try {
            await store.append([{ stream: 'hot', expectedVersion: version, events: [newEvent('Hit', { w, i })] }]);
            i++;
          } catch (error) {
            if (!(error instanceof VersionConflict)) throw error;
            conflicts++;
          }
        }
      };
      await Promise.all(Array.from({ length: workers }, (_, w) => worker(w)));
      const log = await store.readStream('hot');
      expect(log.map((e) => e.version)).toEqual(Array.from({ length: workers * each }, (_, i) => i + 1));
      const keys = log.map((e) => `${(e.data as { w: number }).w}/${(e.data as { i: number }).i}`);
      expect(new Set(keys).size).toBe(workers * each);
      expect(new Set(log.map((e) => e.id)).size).toBe(workers * each);
      expect(conflicts).toBeGreaterThan(0);
    });

    it('50 appends fired at once: positions and versions dense, one conflict fails only its own request', async () => {
      await store.append([{ stream: 'taken', expectedVersion: 0, events: events(1) }]);
      const results = await Promise.allSettled(
        Array.from({ length: 50 }, (_, i) =>
          i % 10 === 3
            ? store.append([{ stream: `own${i}`, expectedVersion: 0, events: events(1) }, { stream: 'taken', expectedVersion: 0, events: events(1) }])
            : store.append([{ stream: 'shared', expectedVersion: ANY_VERSION, events: events(2) }, { stream: `own${i}`, expectedVersion: 0, events: events(1) }]),
        ),
      );
      const rejected = results.filter((r) => r.status === 'rejected') as PromiseRejectedResult[];
      expect(rejected).toHaveLength(5);
      for (const r of rejected) expect((r.reason as VersionConflict).stream).toBe('taken');
      const all = await store.readAll();
      expect(all.map((e) => e.position)).toEqual(Array.from({ length: 1 + 45 * 3 }, (_, i) => i + 1));
      expect((await store.readStream('shared')).map((e) => e.version)).toEqual(Array.from({ length: 90 }, (_, i) => i + 1));
      expect(await store.readStream('own3')).toEqual([]);
      expect(await store.readStream('own4')).toHaveLength(1);
      for (const r of results) if (r.status === 'fulfilled') expect(r.value.lastPosition).toBeLessThanOrEqual(all.length);
    });

    it('any sequence of appends, one by one or fired in one tick, matches streams as counters: a conflict writes nothing, the rest append densely in call order', { timeout: slow }, async () => {
      const entry = fc.record({
        stream: fc.constantFrom('a', 'b', 'c'),
        expect: fc.oneof(fc.constant('right' as const), fc.constant('any' as const), fc.integer({ min: 0, max: 4 })),
        n: fc.integer({ min: 0, max: 3 }),
      });
      const anAppend = fc.uniqueArray(entry, { selector: (e) => e.stream, minLength: 1, maxLength: 3 });
      await fc.assert(
        fc.asyncProperty(fc.array(anAppend, { maxLength: 12 }), fc.boolean(), async (appends, together) => {
          const s = await factory();
          try {
            const counts = new Map<string, number>();
            const log: string[] = [];
            const requests = appends.map((entries) =>
              entries.map((e) => ({
                stream: e.stream,
                expectedVersion: (e.expect === 'any' ? ANY_VERSION : e.expect) as number | 'right',
                events: events(e.n),
              })),
            );
            // The model fixes 'right' to the count the stream has when the append is made.
            const send = (r: (typeof requests)[number]) =>
              s.append(r.map((e) => ({ ...e, expectedVersion: e.expectedVersion === 'right' ? (counts.get(e.stream) ?? 0) : (e.expectedVersion as number) })));
            const expectOutcome = (r: (typeof requests)[number]): { conflict?: string; versions?: number[]; last?: number } => {
              const resolved = r.map((e) => ({ ...e, expectedVersion: e.expectedVersion === 'right' ? (counts.get(e.stream) ?? 0) : (e.expectedVersion as number) }));
              const bad = resolved.find((e) => e.expectedVersion !== ANY_VERSION && e.expectedVersion !== (counts.get(e.stream) ?? 0));
              if (bad) return { conflict: bad.stream };
              const versions = resolved.map((e) => {
                for (let i = 0; i < e.events.length; i++) log.push(`${e.stream}@${(counts.get(e.stream) ?? 0) + i + 1}`);
                counts.set(e.stream, (counts.get(e.stream) ?? 0) + e.events.length);
                return counts.get(e.stream) ?? 0;
              });
              return { versions, last: log.length };
            };
            if (together) {
              // 'right' is taken at call time; every request is sent in the same tick.
              const expected: ReturnType<typeof expectOutcome>[] = [];
              const sent: Promise<unknown>[] = [];
              for (const r of requests) {
                sent.push(send(r));
                expected.push(expectOutcome(r));
              }
              const settled = await Promise.allSettled(sent);
              settled.forEach((o, i) => {
                const want = expected[i]!;
                if (want.conflict) expect(o.status === 'rejected' && (o.reason as VersionConflict).stream).toBe(want.conflict);
                else expect(o).toEqual({ status: 'fulfilled', value: { versions: want.versions, lastPosition: want.last } });
              });
            } else {
              for (const r of requests) {
                const pending = send(r);
                const want = expectOutcome(r);
                if (want.conflict) expect((await conflictOf(pending)).stream).toBe(want.conflict);
                else expect(await pending).toEqual({ versions: want.versions, lastPosition: want.last });
              }
            }
            const all = await s.readAll();
            expect(all.map((e) => `${e.stream}@${e.version}`)).toEqual(log);
            expect(all.map((e) => e.position)).toEqual(log.map((_, i) => i + 1));
            expect(await s.head()).toBe(log.length);
          } finally {
            await s.close();
          }
        }),
        { numRuns: 25 },
      );
    });

    it('readers following the log while several writers (other handles, where the store has them) append at once never skip a position that commits later', { timeout: slow }, async () => {
      // Writers of different sizes and pauses, so their transactions overlap and end out of order.
      const aWriter = fc.array(fc.record({ streams: fc.integer({ min: 1, max: 3 }), n: fc.integer({ min: 1, max: 4 }), pause: fc.integer({ min: 0, max: 3 }) }), { minLength: 1, maxLength: 8 });
      const handles = options.opensAgain ? [store, await options.opensAgain(store), await options.opensAgain(store)] : [store, store, store];
      try {
        await fc.assert(
          fc.asyncProperty(fc.array(aWriter, { minLength: 2, maxLength: 3 }), fc.integer({ min: 1, max: 7 }), async (writers, pageSize) => {
            await store.clear();
            let writing = true;
            const written = Promise.all(
              writers.map(async (appends, w) => {
                const h = handles[w % handles.length]!;
                await Promise.all(
                  appends.map(async ({ streams, n, pause }, k) => {
                    await new Promise((r) => setTimeout(r, pause));
                    await h.append(Array.from({ length: streams }, (_, i) => ({ stream: `w${w}:${k}:${i}`, expectedVersion: 0, events: events(n) })));
                  }),
                );
              }),
            ).finally(() => (writing = false));
            const read: number[] = [];
            let seen = 0;
            const follow = async () => {
              for (;;) {
                const page = await store.readAll(seen, pageSize);
                for (const e of page) read.push(e.position);
                if (page.length > 0) seen = page[page.length - 1]!.position;
                else if (!writing) return;
                else await new Promise((r) => setImmediate(r));
              }
            };
            // Two readers, one on a writer's own handle: neither may pass a position that is still to come.
            const others: number[] = [];
            let otherSeen = 0;
            const followOther = async () => {
              for (;;) {
                const page = await handles[1]!.readAll(otherSeen, pageSize + 1);
                for (const e of page) others.push(e.position);
                if (page.length > 0) otherSeen = page[page.length - 1]!.position;
                else if (!writing) return;
                else await new Promise((r) => setImmediate(r));
              }
            };
            await Promise.all([written, follow(), followOther()]);
            // Whatever was still unread when the writers finished: a reader reads on from where it stood.
            await follow();
            await followOther();
            const all = (await store.readAll()).map((e) => e.position);
            expect(read).toEqual(all);
            expect(others).toEqual(all);
            expect(await store.head()).toBe(all.at(-1) ?? 0);
          }),
          { numRuns: 15 },
        );
      } finally {
        for (const h of new Set(handles)) if (h !== store) await h.close();
      }
    });

    it('data JSON cannot hold (a bigint, a cycle) is stored as given or refused with its own append alone', async () => {
      const cycle: Record<string, unknown> = { name: 'loop' };
      cycle.self = cycle;
      // Fired in one tick, so a store that groups appends holds all three in one group.
      const [big, loop, fine] = await Promise.allSettled([
        store.append([{ stream: 'big', expectedVersion: 0, events: [newEvent('Odd', { n: 10n })] }]),
        store.append([{ stream: 'loop', expectedVersion: 0, events: [newEvent('Odd', cycle)] }]),
        store.append([{ stream: 'fine', expectedVersion: 0, events: [newEvent('Fine', { n: 1 })] }]),
      ]);
      expect(fine.status).toBe('fulfilled');
      expect(await store.readStream('fine')).toHaveLength(1);
      for (const [stream, outcome] of [['big', big], ['loop', loop]] as const) {
        if (outcome.status === 'rejected') expect(await store.readStream(stream)).toEqual([]);
        else expect(await store.readStream(stream)).toHaveLength(1);
      }
    });

    it('keeps a 1 MB payload intact', { timeout: slow }, async () => {
      const big = 'x'.repeat(512 * 1024) + 'é😀'.repeat(64 * 1024) + 'end';
      await store.append([{ stream: 'big', expectedVersion: 0, events: [newEvent('Big', { big, list: Array.from({ length: 1000 }, (_, i) => i) })] }]);
      const [e] = await store.readStream('big');
      expect((e!.data as { big: string }).big).toBe(big);
      expect((e!.data as { list: number[] }).list).toHaveLength(1000);
    });

    it('keeps unicode intact in streams, types and data', async () => {
      const text = 'héllo wörld · 名前 · العربية · 😀👩‍👩‍👧 · \u0000 nul · \u2028 · \\ "quoted" · \ud800 lone';
      const stream = 'account:名前😀';
      const e = newEvent('Évènement·😀', { text, [text]: 'as a key' });
      await store.append([{ stream, expectedVersion: 0, events: [e] }]);
      const [got] = await store.readStream(stream);
      expect(got!.type).toBe(e.type);
      expect(got!.data).toEqual({ text, [text]: 'as a key' });
      expect((await store.readAll())[0]!.stream).toBe(stream);
    });

    it('keeps many streams apart', { timeout: slow }, async () => {
      const streams = 1000;
      for (let b = 0; b < streams; b += 100) {
        await Promise.all(
          Array.from({ length: 100 }, (_, i) => store.append([{ stream: `many:${b + i}`, expectedVersion: 0, events: events(3) }])),
        );
      }
      expect(await store.head()).toBe(streams * 3);
      for (const i of [0, 1, 499, 999]) {
        const list = await store.readStream(`many:${i}`);
        expect(list.map((e) => e.version)).toEqual([1, 2, 3]);
        expect(list.every((e) => e.stream === `many:${i}`)).toBe(true);
      }
      const all = await store.readAll();
      expect(all.map((e) => e.position)).toEqual(Array.from({ length: streams * 3 }, (_, i) => i + 1));
    });

    it('keeps each event\'s schema version, 1 when the writer gave none', async () => {
      const given = { ...newEvent('Greeted', { text: 'hi' }), schemaVersion: 3 };
      await store.append([{ stream: 'greetings:1', expectedVersion: 0, events: [newEvent('Greeted', { name: 'ada' }), given] }]);
      expect((await store.readStream('greetings:1')).map((e) => e.schemaVersion)).toEqual([1, 3]);
      expect((await store.readAll()).map((e) => e.schemaVersion)).toEqual([1, 3]);
    });

    it('seen through upcasters, old events read in their type\'s current version and new ones are written in it', async () => {
      // Greeted v1 {name}; v2 renamed it {who}; v3 added {loud}. Old events stay as written.
      const upcasters = new Upcasters()
        .register('Greeted', 1, (d: { name: string }) => ({ who: d.name }))
        .register('Greeted', 2, (d: { who: string }) => ({ ...d, loud: false }));
      await store.append([
        {
          stream: 'greetings:2',
          expectedVersion: 0,
          events: [{ ...newEvent('Greeted', { name: 'ada' }), schemaVersion: 1 }, { ...newEvent('Greeted', { who: 'bob' }), schemaVersion: 2 }],
        },
      ]);
      const evolving = evolvingStore(store, upcasters);
      await evolving.append([{ stream: 'greetings:2', expectedVersion: 2, events: [newEvent('Greeted', { who: 'cy', loud: true }), newEvent('Waved', {})] }]);
      const read = await evolving.readStream('greetings:2');
      expect(read.map((e) => [e.schemaVersion, e.data])).toEqual([
        [3, { who: 'ada', loud: false }],
        [3, { who: 'bob', loud: false }],
        [3, { who: 'cy', loud: true }],
        [1, {}],
      ]);
      expect((await evolving.readAll()).map((e) => e.data)).toEqual(read.map((e) => e.data));
      expect((await store.readStream('greetings:2')).map((e) => [e.schemaVersion, e.data])).toEqual([
        [1, { name: 'ada' }],
        [2, { who: 'bob' }],
        [3, { who: 'cy', loud: true }],
        [1, {}],
      ]);
      const greeted: Decider<string[], never, DomainEvent> = {
        name: 'greeted.v1',
        initialState: () => [],
        decide: () => [],
        evolve: (s, e) => (e.type === 'Greeted' ? [...s, (e.data as { who: string }).who] : s),
      };
      expect((await loaderOf(evolving).load(greeted, 'greetings:2')).state).toEqual(['ada', 'bob', 'cy']);
      const rebuilt = await replay(store, [{ decider: greeted, prefix: 'greetings:' }], { upcasters });
      expect(rebuilt.aggregates.get('greeted.v1|greetings:2')!.state).toEqual(['ada', 'bob', 'cy']);
      // A build that knows only version 1 refuses to fold what a newer one wrote.
      await expect(evolvingStore(store, new Upcasters()).readStream('greetings:2')).rejects.toThrow(/schema version 2, newer than this build knows \(1\)/);
    });

    for (const golden of goldenLogs()) {
      it(`folds the golden log of ${golden.name} (every event type it wrote) to the states it folded to then`, { timeout: slow }, async () => {
        await appendGoldenLog(store, golden.events);
        expect((await store.readAll()).map((e) => [e.position, e.stream, e.version, e.id, e.schemaVersion])).toEqual(
          golden.events.map((e) => [e.position, e.stream, e.version, e.id, e.schemaVersion]),
        );
        const upcasters = platformUpcasters();
        const report = await replay(store, [...PLATFORM_AGGREGATES], { upcasters });
        expect(report.unclaimed).toBe(0);
        const rebuilt = Object.fromEntries([...report.aggregates.values()].map((a) => [a.stream, { kind: a.kind, version: a.version, state: a.state }]));
        expect(Object.keys(rebuilt).sort()).toEqual(Object.keys(golden.states).sort());
        // By stream, so a failure names the aggregate that folds differently. A state as a snapshot keeps it:
        // through JSON (a hole in an array is null there).
        const expectedOf = (stream: string, kind: string) => {
          const expected = expectedState(golden, stream, kind);
          if (!expected) throw new Error(`${stream} now folds as ${kind}, and the golden log of ${golden.name} keeps no state for that kind: run packages/testing/test/golden/restate-golden-states.ts ${golden.name} and review restated.json`);
          return expected;
        };
        const asJson = (state: unknown): unknown => JSON.parse(JSON.stringify(state));
        for (const [stream, got] of Object.entries(rebuilt)) {
          const expected = expectedOf(stream, got.kind);
          expect({ stream, ...got, state: asJson(got.state) }).toEqual({ stream, ...expected });
        }
        // The engine's own load path (one event at a time) folds them the same.
        const loader = loaderOf(store, upcasters);
        for (const stream of Object.keys(golden.states)) {
          const target = PLATFORM_AGGREGATES.find((t) => stream.startsWith(t.prefix))!;
          const loaded = await loader.load(target.decider, stream);
          const expected = expectedOf(stream, target.decider.name);
          expect({ stream, version: loaded.version, state: asJson(loaded.state) }).toEqual({ stream, version: expected.version, state: expected.state });
        }
      });
    }

    it('serves an account an older build opened, its package lacking fields added since, on a complete package', async () => {
      const { redaction_audience_min, redaction_bucket_min, index_capacity_per_month, ...older } = { ...DEFAULT_PACKAGE, credits_per_hour: 40 };
      const salt = '0123456789abcdef';
      await store.append([
        {
          stream: 'account:elder',
          expectedVersion: 0,
          events: [{ ...newEvent('AccountOpened', { username: 'elder', salt, keyHash: hashApiKey(salt, 'elder-key-0001'), package: older, at: 1_700_000_000_000 }), schemaVersion: 1 }],
        },
      ]);
      const engine = createEngine({ store, clock: fixedClock(1_700_000_360_000), ids: seededIds(2) });
      const answer = await engine.call({ version: '1.5', endpoint: 'core.balance', credentials: { username: 'elder', apiKey: 'elder-key-0001' } });
      expect(answer).toMatchObject({ status: 200, rate: { limit: 40 } });
      expect((await engine.accountView('elder')).package).toEqual({ ...older, redaction_audience_min, redaction_bucket_min, index_capacity_per_month });
    });

    it('writes and reads snapshots by stream and kind, keeping the newest', async () => {
      if (!store.readSnapshot || !store.writeSnapshot) return;
      expect(await store.readSnapshot('acc', 'credits.v1')).toBeUndefined();
      const state = { windows: { general: { start: 1, reset: 2, used: 3 } }, list: ['é😀', null, 1.5], nested: { deep: { deeper: true } } };
      await store.writeSnapshot({ stream: 'acc', kind: 'credits.v1', version: 500, state });
      expect(await store.readSnapshot('acc', 'credits.v1')).toEqual({ stream: 'acc', kind: 'credits.v1', version: 500, state });
      expect(await store.readSnapshot('acc', 'credits.v2')).toBeUndefined();
      expect(await store.readSnapshot('other', 'credits.v1')).toBeUndefined();
      await store.writeSnapshot({ stream: 'acc', kind: 'credits.v1', version: 1000, state: { ...state, list: [] } });
      expect((await store.readSnapshot('acc', 'credits.v1'))!.version).toBe(1000);
      await store.writeSnapshot({ stream: 'acc', kind: 'credits.v1', version: 700, state: { stale: true } });
      const kept = await store.readSnapshot('acc', 'credits.v1');
      expect(kept!.version).toBe(1000);
      expect(kept!.state).toEqual({ ...state, list: [] });
    });

    it('dropTypes takes exactly the named types up to the position, never a stream\'s last event; versions and positions go on', { timeout: slow }, async () => {
      if (!store.dropTypes) return;
      await fc.assert(
        fc.asyncProperty(
          fc.array(fc.record({ stream: fc.constantFrom('m:a', 'm:b', 'acct'), type: fc.constantFrom('Matched', 'Opened') }), { minLength: 1, maxLength: 12 }),
          fc.integer({ min: 0, max: 14 }),
          async (written, through) => {
            await store.clear();
            for (const w of written) await store.append([{ stream: w.stream, expectedVersion: ANY_VERSION, events: [newEvent(w.type, {})] }]);
            const before = await store.readAll();
            const last = new Map(before.map((e) => [e.stream, e.position]));
            // Only the streams named by the prefix: the `acct` stream's matches stay whatever their position.
            const kept = before.filter((e) => e.type !== 'Matched' || e.position > through || last.get(e.stream) === e.position || !e.stream.startsWith('m:'));
            expect(await store.dropTypes!(['Matched'], through, 'm:')).toBe(before.length - kept.length);
            expect(await store.readAll()).toEqual(kept);
            expect(await store.readTypes(['Matched'])).toEqual(kept.filter((e) => e.type === 'Matched'));
            for (const stream of last.keys()) expect(await store.readStream(stream)).toEqual(kept.filter((e) => e.stream === stream));
            expect(await store.head()).toBe(before.length);
            // The stream's version and the log's positions carry on from where they were.
            const version = before.filter((e) => e.stream === 'm:a').length;
            expect(await store.append([{ stream: 'm:a', expectedVersion: version, events: [newEvent('Matched', {})] }])).toEqual({ versions: [version + 1], lastPosition: before.length + 1 });
          },
        ),
        { numRuns: 25 },
      );
    });

    it('clear empties events and snapshots, and streams start again at version 1', async () => {
      await store.append([{ stream: 'a', expectedVersion: 0, events: events(3) }]);
      await store.writeSnapshot?.({ stream: 'a', kind: 'k', version: 3, state: { n: 3 } });
      await store.clear();
      expect(await store.head()).toBe(0);
      expect(await store.readAll()).toEqual([]);
      expect(await store.readStream('a')).toEqual([]);
      expect(await store.readSnapshot?.('a', 'k')).toBeUndefined();
      expect(await store.append([{ stream: 'a', expectedVersion: 0, events: events(1) }])).toEqual({ versions: [1], lastPosition: 1 });
    });

    describe('the commit observer', () => {
      commitObserverContract(() => store, options.opensAgain, slow);
    });
  });
}
