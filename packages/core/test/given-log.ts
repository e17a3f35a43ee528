import type { DomainEvent } from '../src/kernel/decider.ts';
import { ANY_VERSION } from '../src/kernel/events.ts';
import type { MemoryEventStore } from '../src/kernel/memory-store.ts';

let serial = 0;

/** Test support: writes `events` to `stream` as one append at `time`, as a decider's write would leave them. */
export async function given(store: MemoryEventStore, stream: string, time: number, ...events: DomainEvent[]): Promise<void> {
  await store.append([{ stream, expectedVersion: ANY_VERSION, events: events.map((e) => ({ id: `given-${++serial}`, type: e.type, data: e.data, time })) }]);
}
