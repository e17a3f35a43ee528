import fc from 'fast-check';
import { expect, it } from 'vitest';
import { ANY_VERSION, followLog, type EventStore, type NewEvent, type OwnWrite, type StoredEvent } from '@sdp/core/kernel';

let counter = 0;
const event = (type = 'Happened'): NewEvent => ({ id: `co-${process.pid}-${++counter}`, type, data: { n: counter }, time: 1_700_000_000_000 + counter });

/** Resolves when `check` holds, polling every few milliseconds; rejects after `withinMs`. */
async function eventually(check: () => boolean, withinMs: number, what: string): Promise<void> {
  const until = Date.now() + withinMs;
  while (!check()) {
    if (Date.now() > until) throw new Error(`not within ${withinMs} ms: ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

const positions = (events: readonly StoredEvent[]) => events.map((e) => e.position);

/**
 * The commit observer's part of the store contract (`EventStore.watchCommits` and `followLog` over it).
 * `store()` is the store under test; `opensAgain`, where given, opens a second handle on the same data,
 * as another process would.
 */
export function commitObserverContract(store: () => EventStore, opensAgain: ((store: EventStore) => Promise<EventStore>) | undefined, slow: number): void {
  it('tells a watcher after its commits are answered, once a turn however many, and a stopped watch hears nothing', async () => {
    const s = store();
    let heard = 0;
    const stop = s.watchCommits(() => heard++);
    await s.append([{ stream: 'w', expectedVersion: 0, events: [event()] }]);
    await eventually(() => heard >= 1, 2000, 'a notice after an append');
    const before = heard;
    await Promise.all(Array.from({ length: 10 }, () => s.append([{ stream: 'w2', expectedVersion: ANY_VERSION, events: [event()] }])));
    await eventually(() => heard > before, 2000, 'a notice after ten appends');
    // Coalesced: ten commits answered in a few turns give a few notices, not one per event read.
    expect(heard - before).toBeLessThanOrEqual(10);
    stop();
    const after = heard;
    await s.append([{ stream: 'w', expectedVersion: 1, events: [event()] }]);
    await new Promise((r) => setTimeout(r, 50));
    expect(heard).toBe(after);
  });

  it("lists this handle's own writes in its notices: each append's positions, and the time its events share", async () => {
    const s = store();
    const writes: OwnWrite[] = [];
    const stop = s.watchCommits((notice) => void writes.push(...notice.ownWrites));
    const head = await s.head();
    const at = (time: number): NewEvent => ({ ...event(), time });
    await s.append([{ stream: 'o1', expectedVersion: ANY_VERSION, events: [at(5), at(5)] }, { stream: 'o2', expectedVersion: ANY_VERSION, events: [at(5)] }]);
    await s.append([{ stream: 'o1', expectedVersion: ANY_VERSION, events: [at(1), at(2)] }]);
    // A read guard alone writes nothing and is no write.
    await s.append([{ stream: 'o3', expectedVersion: 0, events: [] }]);
    await eventually(() => writes.length >= 2, 2000, 'two own writes');
    await new Promise((r) => setTimeout(r, 20));
    stop();
    expect(writes).toEqual([
      { first: head + 1, last: head + 3, time: 5 },
      { first: head + 4, last: head + 5, time: undefined },
    ]);
  });

  it('a follower hands over every event once, in position order, however the appends came (property)', { timeout: slow }, async () => {
    const s = store();
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 1, maxLength: 6 }), { minLength: 1, maxLength: 6 }),
        async (rounds) => {
          const start = await s.head();
          const seen: StoredEvent[] = [];
          const follower = followLog(s, (events) => void seen.push(...events), { after: start, pageSize: 4 });
          // Each round's appends are fired at once (one group where the store groups them); rounds in order.
          for (const round of rounds) {
            await Promise.all(round.map((n, i) => s.append([{ stream: `p${i}`, expectedVersion: ANY_VERSION, events: Array.from({ length: n }, () => event()) }])));
          }
          await follower.caughtUp();
          follower.stop();
          const logged = await s.readAll(start);
          expect(positions(seen)).toEqual(positions(logged));
          expect(new Set(seen.map((e) => e.id)).size).toBe(seen.length);
        },
      ),
      { numRuns: 12 },
    );
  });

  it('a follower of some types reads only those; one started at the head reads only what commits after it', async () => {
    const s = store();
    await s.append([{ stream: 'old', expectedVersion: 0, events: [event('Wanted'), event('Other')] }]);
    const wanted: StoredEvent[] = [];
    const fromHead = followLog(s, (events) => void wanted.push(...events), { types: ['Wanted'] });
    await fromHead.caughtUp();
    await s.append([{ stream: 'new', expectedVersion: 0, events: [event('Other'), event('Wanted'), event('Other')] }]);
    await eventually(() => wanted.length === 1, 2000, 'the new Wanted event');
    await fromHead.caughtUp();
    fromHead.stop();
    expect(wanted.map((e) => [e.stream, e.type])).toEqual([['new', 'Wanted']]);
  });

  it('a follower hears the log emptied, says so, and starts again from the new log', async () => {
    const s = store();
    await s.append([{ stream: 'c', expectedVersion: 0, events: [event(), event()] }]);
    const seen: StoredEvent[] = [];
    let cleared = 0;
    const follower = followLog(s, (events) => void seen.push(...events), { after: 0, onCleared: () => cleared++ });
    await follower.caughtUp();
    expect(seen).toHaveLength(2);
    await s.clear();
    await eventually(() => cleared === 1, 2000, 'the clear');
    await s.append([{ stream: 'c', expectedVersion: 0, events: [event()] }]);
    await eventually(() => seen.length === 3, 2000, 'the first event of the new log');
    follower.stop();
    expect(seen[2]!.position).toBe(1);
  });

  if (opensAgain) {
    it("a follower on another handle of the same data (another process) hears the first handle's commits within a second", { timeout: slow }, async () => {
      const s = store();
      const other = await opensAgain(s);
      try {
        const seen: StoredEvent[] = [];
        const follower = followLog(other, (events) => void seen.push(...events));
        await follower.caughtUp();
        const sent = Date.now();
        await s.append([{ stream: 'x', expectedVersion: ANY_VERSION, events: [event(), event()] }]);
        await eventually(() => seen.length === 2, 1000, "the other handle's two events");
        expect(Date.now() - sent).toBeLessThan(1000);
        follower.stop();
      } finally {
        await other.close();
      }
    });
  }
}
