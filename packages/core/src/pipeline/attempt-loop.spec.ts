import { describe, expect, it } from 'vitest';
import { AggregateLoader } from '../kernel/aggregates.ts';
import type { Decider } from '../kernel/decider.ts';
import { StoreUnavailable, type EventStore } from '../kernel/event-store.ts';
import type { AppendResult, StreamAppend } from '../kernel/events.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { seededIds } from '../kernel/ports.ts';
import type { UnitOfWork } from '../kernel/unit-of-work.ts';
import { VersionConflict } from '../kernel/version-conflict.ts';
import { SNAPSHOT_EVERY } from '../kernel/state-cache.ts';
import { AttemptLoop, type GaveUp, type Judge, type LaneHold, type Verdict } from './attempt-loop.ts';

const T0 = Date.parse('2026-05-01T10:00:00Z');

/** A counter per stream: enough state to see what the cache holds between the loop's steps. */
const counter: Decider<{ n: number }, 'add', { type: 'Added'; data: Record<string, never> }> = {
  name: 'counter',
  initialState: () => ({ n: 0 }),
  decide: () => [{ type: 'Added', data: {} }],
  evolve: (s) => ({ n: s.n + 1 }),
};

/** A store whose appends wait for the test to let them through (or fail them), in the order asked. */
class GatedStore extends MemoryEventStore {
  readonly asked: { batch: StreamAppend[]; pass: () => void; fail: (e: unknown) => void }[] = [];
  override append(batch: StreamAppend[]): Promise<AppendResult> {
    return new Promise((resolve, reject) => {
      this.asked.push({ batch, pass: () => resolve(super.append(batch)), fail: reject });
    });
  }
}

/** Turns of the event loop, so every promise ready to move has moved. */
const settle = () => new Promise((r) => setImmediate(r));

function loopOver(store: EventStore, pipelined: boolean, extra: { maxAttempts?: number; away?: unknown[]; back?: number[] } = {}) {
  const loader = new AggregateLoader(store, { trustsCache: true });
  const loop = new AttemptLoop({
    store,
    loader,
    clock: { now: () => T0 },
    ids: seededIds(5),
    settings: { maxAttempts: extra.maxAttempts ?? 10 },
    policy: { pipelines: pipelined },
    onStoreAway: (e) => extra.away?.push(e),
    onStoreBack: () => extra.back?.push(1),
  });
  return { loop, loader };
}

/** A judge of one account's counter: enters the account's lane, then adds one (or refuses, writing nothing). */
class CounterJudge implements Judge<string> {
  judged = 0;
  units: UnitOfWork[] = [];
  ended: GaveUp | undefined;
  doneCalls = 0;
  constructor(
    private readonly account: string,
    private readonly write = true,
  ) {}
  async judge(uow: UnitOfWork, lane: LaneHold): Promise<Verdict<string>> {
    this.judged++;
    this.units.push(uow);
    const queued = lane.enter(this.account);
    if (queued) return queued;
    const r = uow.execute(counter, `counter:${this.account}`, 'add');
    const { state } = r instanceof Promise ? await r : r;
    return { answer: `n=${state.n}`, write: this.write };
  }
  gaveUp(_error: unknown, why: GaveUp): string {
    this.ended = why;
    return `gave up: ${why}`;
  }
  done(): void {
    this.doneCalls++;
  }
}

/** A judge of one counter answering at once when the state is at hand (as the call judge does). */
class AtOnceJudge implements Judge<string> {
  judged = 0;
  doneCalls = 0;
  judge(uow: UnitOfWork, lane: LaneHold): Verdict<string> | Promise<Verdict<string>> {
    this.judged++;
    const queued = lane.enter('a');
    if (queued) return queued;
    const r = uow.execute(counter, 'counter:a', 'add');
    if (r instanceof Promise) return r.then(({ state }) => ({ answer: `n=${state.n}`, write: true }));
    return { answer: `n=${r.state.n}`, write: true };
  }
  gaveUp(_error: unknown, why: GaveUp): string {
    return `gave up: ${why}`;
  }
  done(): void {
    this.doneCalls++;
  }
}

const cached = (loader: AggregateLoader, account: string) => {
  const l = loader.load(counter, `counter:${account}`);
  if (l instanceof Promise) throw new Error('expected the cache to answer');
  return l;
};

describe('the attempt loop: the one way a decision reaches the store', () => {
  it('pipelined: the state is cached as pending and the lane left before the append is durable; durable after', async () => {
    const store = new GatedStore();
    const { loop, loader } = loopOver(store, true);
    const first = new CounterJudge('a');
    const answer = loop.run(first);
    await settle();
    expect(store.asked).toHaveLength(1);
    expect(cached(loader, 'a')).toMatchObject({ state: { n: 1 }, version: 1, pending: true });
    // The lane is free while the write is on its way: the account's next call decides on the pending state.
    const second = new CounterJudge('a');
    const next = loop.run(second);
    await settle();
    expect(second.judged).toBe(1);
    expect(store.asked).toHaveLength(2);
    expect(store.asked[1]!.batch[0]).toMatchObject({ expectedVersion: 1, expectedLastId: store.asked[0]!.batch[0]!.events[0]!.id });
    store.asked[0]!.pass();
    store.asked[1]!.pass();
    expect(await answer).toBe('n=1');
    expect(await next).toBe('n=2');
    expect(cached(loader, 'a')).toMatchObject({ state: { n: 2 }, version: 2 });
    expect(cached(loader, 'a').pending).toBeFalsy();
    expect([first.doneCalls, second.doneCalls]).toEqual([1, 1]);
    expect(loop.busyLanes).toBe(0);
  });

  it('not pipelined: the lane is held and the cache untouched until the append is durable', async () => {
    const store = new GatedStore();
    const { loop, loader } = loopOver(store, false);
    const answer = loop.run(new CounterJudge('a'));
    await settle();
    expect(cached(loader, 'a')).toMatchObject({ state: { n: 0 }, version: 0 });
    const second = new CounterJudge('a');
    const next = loop.run(second);
    await settle();
    // Queued behind the first: it judged once, was told to wait, and has not judged again.
    expect(second.judged).toBe(1);
    expect(store.asked).toHaveLength(1);
    store.asked[0]!.pass();
    expect(await answer).toBe('n=1');
    await settle();
    // Its turn: judged again on a fresh unit, which reads what the first wrote.
    expect(second.judged).toBe(2);
    expect(second.units[0]).not.toBe(second.units[1]);
    store.asked[1]!.pass();
    expect(await next).toBe('n=2');
    expect(loop.counts()).toEqual({ runs: 2, conflicts: 0, laneWaits: 1, gaveUp: { conflicts: 0, storeAway: 0, failure: 0 } });
  });

  it('a failed append drops the pending state it cached, and every pending state built on it fails too', async () => {
    const store = new GatedStore();
    const away: unknown[] = [];
    const back: number[] = [];
    const { loop, loader } = loopOver(store, true, { away, back });
    const first = new CounterJudge('a');
    const answer = loop.run(first);
    await settle();
    const second = new CounterJudge('a');
    const next = loop.run(second);
    await settle();
    store.asked[0]!.fail(new StoreUnavailable('disk gone'));
    expect(await answer).toBe('gave up: store-away');
    expect(first.ended).toBe('store-away');
    // The second was decided on the first's pending state: the store refuses it (its expected last id is
    // not there), and its retry decides on what is durable.
    store.asked[1]!.pass();
    await settle();
    expect(store.asked).toHaveLength(3);
    store.asked[2]!.pass();
    expect(await next).toBe('n=1');
    expect(second.judged).toBe(2);
    expect(cached(loader, 'a')).toMatchObject({ state: { n: 1 }, version: 1 });
    // Told once that the store went away, once that it came back.
    expect(away).toHaveLength(1);
    expect(back).toHaveLength(1);
  });

  it('a refusal sends only its read guards, and writes nothing', async () => {
    const store = new GatedStore();
    const { loop } = loopOver(store, true);
    const refused = loop.run(new CounterJudge('a', false));
    await settle();
    expect(store.asked[0]!.batch).toEqual([{ stream: 'counter:a', expectedVersion: 0, events: [], expectedLastId: undefined }]);
    store.asked[0]!.pass();
    expect(await refused).toBe('n=1');
    expect(await store.head()).toBe(0);
  });

  it('conflicts: the lane is left between attempts, and after the bounded attempts the judge gives up', async () => {
    const inner = new MemoryEventStore();
    let conflicts = 3;
    const store = Object.create(inner) as EventStore;
    store.append = (batch) => (conflicts-- > 0 ? Promise.reject(new VersionConflict(batch[0]!.stream, 0, 1)) : inner.append(batch));
    const { loop } = loopOver(store, true, { maxAttempts: 3 });
    const judge = new CounterJudge('a');
    expect(await loop.run(judge)).toBe('gave up: conflicts');
    expect(judge.judged).toBe(3);
    expect(loop.busyLanes).toBe(0);
    const again = new CounterJudge('a');
    expect(await loop.run(again)).toBe('n=1');
    expect(judge.doneCalls).toBe(1);
    // Three conflicts: two retries, then the third ended the first run; the second run met none.
    expect(loop.counts()).toEqual({ runs: 2, conflicts: 3, laneWaits: 0, gaveUp: { conflicts: 1, storeAway: 0, failure: 0 } });
  });

  it('any other failure ends the attempts at once through the judge, and the lane is left', async () => {
    const { loop } = loopOver(new MemoryEventStore(), true);
    const judge = new CounterJudge('a');
    judge.judge = async (_uow, lane) => {
      judge.judged++;
      lane.enter('a');
      throw new Error('a bug');
    };
    expect(await loop.run(judge)).toBe('gave up: failure');
    expect(judge.judged).toBe(1);
    expect(loop.busyLanes).toBe(0);
    expect(judge.doneCalls).toBe(1);
  });

  it('a judge that answers at once, on a store that writes within the call: the answer as a value, written and durable, the lane left', async () => {
    const store = new MemoryEventStore();
    const { loop, loader } = loopOver(store, true);
    // The first load reads the store: a promise. Then the state is at hand.
    const first = new AtOnceJudge();
    const waited = loop.run(first);
    expect(waited).toBeInstanceOf(Promise);
    expect(await waited).toBe('n=1');
    const second = new AtOnceJudge();
    const answer = loop.run(second);
    expect(answer).toBe('n=2');
    expect(cached(loader, 'a')).toMatchObject({ state: { n: 2 }, version: 2 });
    expect(cached(loader, 'a').pending).toBeFalsy();
    expect(await store.head()).toBe(2);
    expect([second.doneCalls, loop.busyLanes]).toEqual([1, 0]);
  });

  it('at once, a conflict goes on as every other: the attempts carry on behind a promise, from the cache dropped', async () => {
    const store = new MemoryEventStore();
    const { loop, loader } = loopOver(store, true);
    expect(await loop.run(new AtOnceJudge())).toBe('n=1');
    // Another writer moves the stream behind the cache's back.
    store.appendNow([{ stream: 'counter:a', expectedVersion: 1, events: [{ id: 'other', type: 'Added', data: {}, time: T0 }] }]);
    const judge = new AtOnceJudge();
    const answer = loop.run(judge);
    expect(answer).toBeInstanceOf(Promise);
    expect(await answer).toBe('n=3');
    expect(judge.judged).toBe(2);
    expect(cached(loader, 'a')).toMatchObject({ state: { n: 3 }, version: 3 });
    expect(loop.counts()).toMatchObject({ runs: 2, conflicts: 1 });
    expect([judge.doneCalls, loop.busyLanes]).toEqual([1, 0]);
  });

  it('a store whose append throws instead of rejecting: its states leave the cache as for a rejection, and the next call decides on what is durable', async () => {
    for (const thrown of [new Error('the store broke'), new VersionConflict('counter:a', 1, 2)]) {
      const inner = new MemoryEventStore();
      let fail = false;
      const store = Object.create(inner) as EventStore;
      store.append = (batch) => {
        if (!fail) return inner.append(batch);
        fail = false;
        throw thrown;
      };
      const { loop, loader } = loopOver(store, true, { maxAttempts: 1 });
      expect(await loop.run(new CounterJudge('a'))).toBe('n=1');
      fail = true;
      const judge = new CounterJudge('a');
      expect(await loop.run(judge)).toMatch(/^gave up/);
      // Nothing was written: the state the failed write decided must not stand, pending or not.
      const held = loader.load(counter, 'counter:a');
      expect(held instanceof Promise ? await held : held).toMatchObject({ state: { n: 1 }, version: 1 });
      expect(await loop.run(new CounterJudge('a'))).toBe('n=2');
      expect(await inner.head()).toBe(2);
      expect([judge.doneCalls, loop.busyLanes]).toEqual([1, 0]);
    }
  });

  it('at once, a write that makes a snapshot due answers once the snapshot is written, behind a promise; the calls around it at once', async () => {
    const store = new MemoryEventStore();
    const { loop } = loopOver(store, true);
    expect(await loop.run(new AtOnceJudge())).toBe('n=1');
    for (let n = 2; n < SNAPSHOT_EVERY; n++) expect(loop.run(new AtOnceJudge())).toBe(`n=${n}`);
    const judge = new AtOnceJudge();
    const due = loop.run(judge);
    expect(due).toBeInstanceOf(Promise);
    expect(await due).toBe(`n=${SNAPSHOT_EVERY}`);
    expect(await store.readSnapshot('counter:a', 'counter')).toMatchObject({ version: SNAPSHOT_EVERY, state: { n: SNAPSHOT_EVERY } });
    expect([judge.doneCalls, loop.busyLanes]).toEqual([1, 0]);
    expect(loop.run(new AtOnceJudge())).toBe(`n=${SNAPSHOT_EVERY + 1}`);
  });

  it('at once and queued calls of one account keep the lane: a call that could answer at once while the lane is held waits its turn, in order', async () => {
    const store = new MemoryEventStore();
    const { loop } = loopOver(store, true);
    expect(await loop.run(new AtOnceJudge())).toBe('n=1');
    let open!: () => void;
    const gate = new Promise<void>((r) => (open = r));
    // Holds the lane across a wait before it decides.
    const holding: Judge<string> = {
      async judge(uow, lane) {
        const queued = lane.enter('a');
        if (queued) return queued;
        await gate;
        const r = uow.execute(counter, 'counter:a', 'add');
        return { answer: `n=${(r instanceof Promise ? await r : r).state.n}`, write: true };
      },
      gaveUp: (_e, why) => `gave up: ${why}`,
    };
    const first = loop.run(holding);
    await settle();
    const second = loop.run(new AtOnceJudge());
    const third = loop.run(new AtOnceJudge());
    expect([second, third].map((a) => a instanceof Promise)).toEqual([true, true]);
    open();
    expect(await Promise.all([first, second, third])).toEqual(['n=2', 'n=3', 'n=4']);
    expect((await store.readStream('counter:a')).map((e) => e.version)).toEqual([1, 2, 3, 4]);
    expect(loop.busyLanes).toBe(0);
    expect(loop.run(new AtOnceJudge())).toBe('n=5');
  });
});
