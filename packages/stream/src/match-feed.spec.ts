import { describe, expect, it } from 'vitest';
import { ANY_VERSION, MemoryEventStore, type EventStore, type StoredEvent } from '@sdp/core/kernel';
import { MATCHED_TYPE } from '@sdp/core/internal';
import { MatchFeed } from './match-feed.ts';

const matched = (n: number) => ({ id: `mf-${n}`, type: MATCHED_TYPE, data: { at: n, items: [] }, time: n });
const other = (n: number) => ({ id: `mo-${n}`, type: 'CreditsCharged', data: {}, time: n });

/** The store, counting the reads a follower makes. */
function counting(): { store: EventStore; inner: MemoryEventStore; reads: () => number } {
  const inner = new MemoryEventStore();
  let reads = 0;
  const store: EventStore = Object.assign(Object.create(inner) as EventStore, {
    readTypes: (...a: Parameters<EventStore['readTypes']>) => (reads++, inner.readTypes(...a)),
  });
  return { store, inner, reads: () => reads };
}

const settled = () => new Promise((r) => setImmediate(r));

describe('the stream host’s match feed', () => {
  it('reads nothing after commits while paused (a server nobody streams from), and resumes where it paused, losing nothing', async () => {
    const { store, inner, reads } = counting();
    const delivered: StoredEvent[] = [];
    const feed = new MatchFeed(store, (page) => void delivered.push(...page), (e) => { throw e; });
    await inner.append([{ stream: 'streams:a', expectedVersion: ANY_VERSION, events: [matched(1)] }]);
    feed.start();
    await feed.caughtUp();
    feed.pause();
    const before = reads();
    for (let n = 2; n <= 21; n++) await inner.append([{ stream: n % 2 ? 'streams:a' : 'credits:a', expectedVersion: ANY_VERSION, events: [n % 2 ? matched(n) : other(n)] }]);
    await settled();
    expect(reads()).toBe(before);
    expect(delivered).toEqual([]);

    feed.start();
    await feed.caughtUp();
    // What committed while paused arrives once, in order; what was there before the first start does not.
    expect(delivered.map((e) => e.data)).toEqual([3, 5, 7, 9, 11, 13, 15, 17, 19, 21].map((n) => ({ at: n, items: [] })));
    await inner.append([{ stream: 'streams:a', expectedVersion: ANY_VERSION, events: [matched(22)] }]);
    await feed.caughtUp();
    feed.stop();
    expect(delivered).toHaveLength(11);
  });
});
