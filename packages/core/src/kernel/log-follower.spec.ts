import { describe, expect, it } from 'vitest';
import { ANY_VERSION, type StoredEvent } from './events.ts';
import type { EventStore } from './event-store.ts';
import { followLog } from './log-follower.ts';
import { MemoryEventStore } from './memory-store.ts';

const event = (n: number) => ({ id: `lf-${n}`, type: 'Happened', data: { n }, time: n });

describe('following the log', () => {
  it('hands nothing over once stopped, even a page whose read was under way, and keeps its position for a follower started again', async () => {
    const inner = new MemoryEventStore();
    let releaseRead: (() => void) | undefined;
    const store: EventStore = Object.assign(Object.create(inner) as EventStore, {
      readAll: async (after?: number, limit?: number) => {
        const page = await inner.readAll(after, limit);
        if (page.length > 0) await new Promise<void>((r) => (releaseRead = r));
        return page;
      },
    });
    await inner.append([{ stream: 's', expectedVersion: ANY_VERSION, events: [event(1), event(2)] }]);
    const handed: StoredEvent[] = [];
    const first = followLog(store, (events) => void handed.push(...events), { after: 0 });
    while (!releaseRead) await new Promise((r) => setImmediate(r));
    first.stop();
    releaseRead();
    await new Promise((r) => setImmediate(r));
    expect(handed).toEqual([]);
    expect(first.position).toBe(0);

    const again = followLog(inner, (events) => void handed.push(...events), { after: first.position });
    await again.caughtUp();
    again.stop();
    expect(handed.map((e) => e.position)).toEqual([1, 2]);
  });
});
