import type { EventStore } from './event-store.ts';
import type { StoredEvent } from './events.ts';
import { LogProcessor, type LogFollower, type LogProcessorOptions } from './log-processor.ts';
import { CATCH_UP_PAGE } from './projection.ts';

export type { LogFollower } from './log-processor.ts';

export type FollowLogOptions = Omit<LogProcessorOptions, 'resetCheck'>;

/**
 * Follows a store's log by position: every event committed after `after`, by this process or another
 * writer of the same store, is handed to `onEvents` once, in position order, in pages. A `LogProcessor`
 * in push mode (`follow`), for a reader that needs nothing else of it.
 */
export function followLog(store: EventStore, onEvents: (events: StoredEvent[]) => void | Promise<void>, options: FollowLogOptions = {}): LogFollower {
  return new LogProcessor(store, onEvents, { pageSize: CATCH_UP_PAGE, ...options }).follow();
}
