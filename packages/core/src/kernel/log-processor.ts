import type { EventStore } from './event-store.ts';
import type { StoredEvent } from './events.ts';

/** Events read and handed over at most at once: a page of the log's largest events stays in tens of MiB. */
export const LOG_PAGE = 1_000;

export interface LogProcessorOptions {
  /**
   * The checkpoint to start after. `'head'` (the default) processes only what commits from now on; `0`
   * reads the whole log first.
   */
  after?: number | 'head';
  /** Only events of these types are read and handed over (the store is asked for nothing else). */
  types?: readonly string[];
  /** Events read and handed over at most at once (default `LOG_PAGE`): bounds what a page holds. */
  pageSize?: number;
  /**
   * The log was emptied under the processor (an operator's reset): it starts again from position 0, and
   * this is called first so a reader can drop what it built from the old log.
   */
  onCleared?: () => void;
  /**
   * How a reset is noticed. `head` (the default): the log's head fell below the checkpoint, one read when
   * a page comes back empty. `event`: also the event at the checkpoint is no longer the one handed over
   * (a log emptied and written past the checkpoint again since the last read); one more read a pass, for
   * readers that run now and then rather than after every commit.
   */
  resetCheck?: 'head' | 'event';
  /** A read or a handler failed while following; it is tried again at the next commit notice. */
  onError?: (error: unknown) => void;
}

/** A processor following the log (`LogProcessor.follow`). */
export interface LogFollower {
  /** The position of the last event handed over (or skipped over, for a follower of some types). */
  readonly position: number;
  /** Resolves once the follower has handed over everything committed before the call. */
  caughtUp(): Promise<void>;
  /** Stops following: nothing is handed over after the handler running now, if any, returns. */
  stop(): void;
}

/**
 * The one shape of every reader of the log beside the core: which events (`types`), a checkpoint (the
 * position handed over to), what to do when the log was cleared under it (`onCleared`), and two modes
 * over the same page loop: pull (`catchUp`: read from the checkpoint to the head now, as a keeper's round
 * or a start-up does) and push (`follow`: read whenever the store's commit observer says the log grew, in
 * this process or another). The log says what; a notice missed or merged loses nothing.
 */
export class LogProcessor {
  private checkpoint: number;
  private lastId: string | undefined;
  private readonly pageSize: number;
  private reading: Promise<void> | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly handle: (events: StoredEvent[]) => void | Promise<void>,
    private readonly options: LogProcessorOptions = {},
  ) {
    this.checkpoint = typeof options.after === 'number' ? options.after : -1;
    this.pageSize = options.pageSize ?? LOG_PAGE;
  }

  /** The position handed over to (`-1` before a processor that starts at the head first read it). */
  get position(): number {
    return this.checkpoint;
  }

  /**
   * Pull: hands over everything from the checkpoint to the log's head, page by page. Callers arriving
   * while a read runs share it, so no page is handed over twice.
   */
  catchUp(stopped: () => boolean = () => false): Promise<void> {
    return (this.reading ??= this.drain(stopped).finally(() => (this.reading = undefined)));
  }

  /** Back to the start of the log (the operator's reset, from the reader's side): the next read begins at 0. */
  rewind(): void {
    this.checkpoint = 0;
    this.lastId = undefined;
  }

  private async drain(stopped: () => boolean): Promise<void> {
    const { store, pageSize } = this;
    const types = this.options.types;
    if (this.checkpoint < 0) this.checkpoint = await store.head();
    if (this.options.resetCheck === 'event' && this.checkpoint > 0 && this.lastId !== undefined) {
      const [at] = await store.readAll(this.checkpoint - 1, 1);
      if (!at || at.id !== this.lastId) this.cleared();
    }
    for (;;) {
      if (stopped()) return;
      const from = this.checkpoint;
      const page = types ? await store.readTypes(types, from, pageSize) : await store.readAll(from, pageSize);
      // Stopped while reading: the page is not handed over and the checkpoint stays, so a processor
      // started again from it reads the page once.
      if (stopped()) return;
      if (page.length === 0) {
        // Nothing after the checkpoint: either nothing new, or the log was emptied and numbers again from 1.
        if ((await store.head()) < from) {
          this.cleared();
          continue;
        }
        return;
      }
      const last = page[page.length - 1]!;
      this.checkpoint = last.position;
      this.lastId = last.id;
      await this.handle(page);
      if (page.length < pageSize) return;
    }
  }

  private cleared(): void {
    this.rewind();
    this.options.onCleared?.();
  }

  /** Push: follows the log from the checkpoint, reading at every commit notice until stopped. */
  follow(): LogFollower {
    const store = this.store;
    const onError = this.options.onError;
    let running = false;
    let again = false;
    let stopped = false;
    /** Callers of `caughtUp` waiting for a pass that began after they asked. */
    let waiting: (() => void)[] = [];
    const isStopped = (): boolean => stopped;

    const run = async (): Promise<void> => {
      running = true;
      try {
        do {
          again = false;
          const answered = waiting;
          waiting = [];
          try {
            await this.catchUp(isStopped);
          } catch (error) {
            onError?.(error);
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
    const processor = this;
    return {
      get position() {
        return processor.position;
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
}
