import type { EventStore } from './event-store.ts';
import type { StoredEvent } from './events.ts';
import { CATCH_UP_PAGE } from './projection.ts';

export interface FollowLogOptions {
  /**
   * The position to read after. `'head'` (the default) follows only what commits from now on; `0` reads
   * the whole log first.
   */
  after?: number | 'head';
  /** Only events of these types are read and handed over (the store is asked for nothing else). */
  types?: readonly string[];
  /** Events read and handed over at most at once (default `CATCH_UP_PAGE`): bounds what a page holds. */
  pageSize?: number;
  /**
   * The log was emptied under the follower (an operator's reset): it starts again from position 0, and
   * this is called first so a reader can drop what it built from the old log.
   */
  onCleared?: () => void;
  /** A read or a handler failed; the follower tries again at the next commit notice. */
  onError?: (error: unknown) => void;
}

/** A reader that follows the log: see `followLog`. */
export interface LogFollower {
  /** The position of the last event handed over (or skipped over, for a follower of some types). */
  readonly position: number;
  /** Resolves once the follower has handed over everything committed before the call. */
  caughtUp(): Promise<void>;
  /** Stops following: nothing is handed over after the handler running now, if any, returns. */
  stop(): void;
}

/**
 * Follows a store's log by position: every event committed after `after`, by this process or another
 * writer of the same store, is handed to `onEvents` once, in position order, in pages. The store's commit
 * notices (`watchCommits`) say when to read; the log says what, so a notice missed or merged loses
 * nothing. Readers outside the core (keepers, reports, the console, the live stream) build on this rather
 * than wrapping a store's `append`.
 */
export function followLog(
  store: EventStore,
  onEvents: (events: StoredEvent[]) => void | Promise<void>,
  options: FollowLogOptions = {},
): LogFollower {
  const pageSize = options.pageSize ?? CATCH_UP_PAGE;
  const types = options.types;
  let position = typeof options.after === 'number' ? options.after : -1;
  let running = false;
  let again = false;
  let stopped = false;
  /** Callers of `caughtUp` waiting for a pass that began after they asked. */
  let waiting: (() => void)[] = [];

  const pass = async (): Promise<void> => {
    if (position < 0) position = await store.head();
    for (;;) {
      if (stopped) return;
      const page = types ? await store.readTypes(types, position, pageSize) : await store.readAll(position, pageSize);
      // Stopped while reading: the page is not handed over and the position stays, so a follower started
      // again from `position` reads it once.
      if (stopped) return;
      if (page.length === 0) {
        // Nothing after our position: either nothing new, or the log was emptied and numbers again from 1.
        if ((await store.head()) < position) {
          position = 0;
          options.onCleared?.();
          continue;
        }
        return;
      }
      position = page[page.length - 1]!.position;
      await onEvents(page);
      if (page.length < pageSize) return;
    }
  };

  const run = async (): Promise<void> => {
    running = true;
    try {
      do {
        again = false;
        const answered = waiting;
        waiting = [];
        try {
          await pass();
        } catch (error) {
          options.onError?.(error);
        }
        for (const done of answered) done();
      } while (again && !stopped);
    } finally {
      running = false;
      if (stopped) for (const done of waiting.splice(0)) done();
    }
  };

  const wake = (): void => {
    if (stopped) return;
    if (running) {
      again = true;
      return;
    }
    void run();
  };

  const unwatch = store.watchCommits(wake);
  wake();

  return {
    get position() {
      return position;
    },
    caughtUp() {
      if (stopped) return Promise.resolve();
      return new Promise<void>((resolve) => {
        waiting.push(resolve);
        wake();
      });
    },
    stop() {
      stopped = true;
      unwatch();
      if (!running) for (const done of waiting.splice(0)) done();
    },
  };
}
