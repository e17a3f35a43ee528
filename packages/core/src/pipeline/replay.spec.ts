import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { evolveWith, foldMany, type DomainEvent } from '../kernel/decider.ts';
import { accountDecider, accountStream } from '../accounting/account.ts';
import { creditsDecider, creditsStream } from '../accounting/credit-window.ts';
import { SNAPSHOT_EVERY } from '../kernel/aggregates.ts';
import { Engine } from './engine.ts';
import { MemoryEventStore } from '../kernel/memory-store.ts';
import { fixedClock, seededIds } from '../kernel/ports.ts';
import { replay, sameState, type ReplayTarget } from '../kernel/replay.ts';

const targets: ReplayTarget[] = [
  { decider: accountDecider, prefix: 'account:' },
  { decider: creditsDecider, prefix: 'credits:' },
];
const T = Date.parse('2026-03-01T10:30:00Z');

/** An engine that served `calls` balance calls to each of two accounts (so snapshots were written). */
async function served(calls: number): Promise<{ store: MemoryEventStore; engine: Engine }> {
  const store = new MemoryEventStore();
  const engine = new Engine({ store, clock: fixedClock(T), ids: seededIds(5), handlers: { 'core.balance': () => ({ body: {} }) } });
  for (const username of ['ada', 'grace']) {
    await engine.openAccount({ username, api_key: `${username}-key-000000000000000000000`, package: { credits_per_hour: 1e9 } });
  }
  for (let i = 0; i < calls; i++) {
    for (const username of ['ada', 'grace']) {
      const a = await engine.call({ version: '1.5', endpoint: 'core.balance', credentials: { username, apiKey: `${username}-key-000000000000000000000` } });
      expect(a.status).toBe(200);
    }
  }
  return { store, engine };
}

describe('replay', () => {
  it('rebuilds every aggregate from the log to the state the engine holds, and finds the snapshots sound', async () => {
    const { store, engine } = await served(1200);
    await store.append([{ stream: 'elsewhere:1', expectedVersion: 0, events: [{ id: 'x', type: 'Other', data: {}, time: T }] }]);
    const report = await replay(store, targets, { pageSize: 333 });
    expect(report.events).toBe(await store.head());
    expect(report.head).toBe(await store.head());
    expect(report.unclaimed).toBe(1);
    expect(report.mismatches).toEqual([]);
    // The newest snapshot of each credits stream (at 1000 events), which the loader wrote.
    expect(report.snapshotsChecked).toBe(2);
    for (const username of ['ada', 'grace']) {
      const rebuilt = report.aggregates.get(`${creditsDecider.name}|${creditsStream(username)}`)!;
      expect(rebuilt.version).toBe(1200);
      expect(rebuilt.state).toEqual((await engine.loader.load(creditsDecider, creditsStream(username))).state);
      expect(report.aggregates.get(`${accountDecider.name}|${accountStream(username)}`)!.state).toEqual(
        (await engine.loader.load(accountDecider, accountStream(username))).state,
      );
    }
  });

  it('reports a snapshot that differs from what the log folds to, naming its stream, kind and version', async () => {
    const { store } = await served(SNAPSHOT_EVERY + 10);
    const good = (await store.readSnapshot('credits:ada', creditsDecider.name))!;
    expect(good.version).toBe(SNAPSHOT_EVERY);
    const wrong = { ...(good.state as object), 'used:general': 1 };
    await store.writeSnapshot({ ...good, state: wrong });
    const report = await replay(store, targets);
    expect(report.mismatches).toHaveLength(1);
    expect(report.mismatches[0]).toMatchObject({ stream: 'credits:ada', kind: creditsDecider.name, version: SNAPSHOT_EVERY, reason: 'differs', snapshot: wrong });
    expect(report.mismatches[0]!.rebuilt).toEqual(good.state);
  });

  it('reports a snapshot ahead of the log', async () => {
    const { store } = await served(20);
    await store.writeSnapshot({ stream: 'credits:grace', kind: creditsDecider.name, version: 500, state: {} });
    const report = await replay(store, targets);
    expect(report.mismatches.map((m) => [m.stream, m.reason, m.version])).toEqual([['credits:grace', 'ahead-of-log', 500]]);
  });
});

describe('sameState', () => {
  it('compares plain data, Maps, Sets and Dates structurally; undefined keys count as absent', () => {
    expect(sameState({ a: [1, { b: 'x' }], c: undefined }, { a: [1, { b: 'x' }] })).toBe(true);
    expect(sameState({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameState(new Map([[1, { x: 1 }]]), new Map([[1, { x: 1 }]]))).toBe(true);
    expect(sameState(new Map([[1, { x: 1 }]]), new Map([[1, { x: 2 }]]))).toBe(false);
    expect(sameState(new Set([1, 2]), new Set([2, 1]))).toBe(true);
    expect(sameState(new Date(5), new Date(5))).toBe(true);
    expect(sameState({ a: 1 }, { a: 1, b: null })).toBe(false);
    expect(sameState([], {})).toBe(false);
    expect(sameState(NaN, NaN)).toBe(true);
  });
});

describe('folding many events at once', () => {
  type Tally = { total: number; seen: string[]; byKey: Record<string, number>; last?: { key: string; n: number } };
  type TallyEvent = DomainEvent<'Added', { key: string; n: number }> | DomainEvent<'Reset', { to: number }> | DomainEvent<'Ignored', null>;
  const evolve = evolveWith<Tally, TallyEvent>({
    Added(s, d) {
      s.total += d.n;
      s.seen.push(d.key);
      s.byKey[d.key] = (s.byKey[d.key] ?? 0) + d.n;
      // Event data kept in the state and changed by a later event: the case one draft must not get wrong.
      s.last ??= d;
      s.last.n += 1;
    },
    Reset(s, d) {
      s.total = d.to;
      s.seen = [];
      s.byKey = {};
    },
  });
  const decider = { initialState: (): Tally => ({ total: 0, seen: [], byKey: {} }), evolve };
  const anEvent = fc.oneof(
    fc.record({ type: fc.constant('Added' as const), data: fc.record({ key: fc.constantFrom('a', 'b', 'c'), n: fc.integer({ min: -5, max: 5 }) }) }),
    fc.record({ type: fc.constant('Reset' as const), data: fc.record({ to: fc.integer({ min: 0, max: 9 }) }) }),
    fc.constant({ type: 'Ignored' as const, data: null }),
  );

  test.prop([fc.array(anEvent, { maxLength: 60 })])('folding through one draft equals one produce per event, and the result is frozen', (events) => {
    const snapshotOfEvents = structuredClone(events);
    let oneByOne = decider.initialState();
    for (const e of structuredClone(events)) oneByOne = evolve(oneByOne, e as TallyEvent);
    const folded = foldMany(decider, events as TallyEvent[]);
    expect(folded).toEqual(oneByOne);
    // The events themselves are left as they were.
    expect(events).toEqual(snapshotOfEvents);
    if (events.length > 0 && folded !== decider.initialState()) expect(Object.isFrozen(folded)).toBe(true);
  });
});
