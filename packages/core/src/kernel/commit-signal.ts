import type { AppendResult, StreamAppend } from './events.ts';

/** Stops a watch: the listener hears nothing after it returns. */
export type StopWatching = () => void;

/** One atomic append this store handle made: its events took positions `first` to `last`. */
export interface OwnWrite {
  readonly first: number;
  readonly last: number;
  /**
   * The time all its events carry, when they carry one (a unit of work stamps its events with the instant
   * it read the clock); undefined when they differ, as in an import of events written long ago.
   */
  readonly time: number | undefined;
}

/**
 * What a store tells its watchers: the log may have grown. It carries no events, so a watcher that misses
 * a notice loses nothing: it reads the log from its own position (`followLog`), and one read answers any
 * number of commits. `ownWrites` lists the appends this handle made since the last notice, in position
 * order, for a reader that shows each write as it was made (the console); other writers' commits are in
 * the log but not in the list.
 */
export interface CommitNotice {
  readonly ownWrites: readonly OwnWrite[];
}

export type CommitListener = (notice: CommitNotice) => void;

/** Own writes held for the next notice at most; past it the oldest are dropped (a watcher asleep for long). */
const OWN_WRITES_HELD = 65_536;

/**
 * The watchers of one store and the notices they are owed. A store calls `wrote` after each append it
 * makes (once durable) and `notify` whenever it learns of another writer's; the listeners run once for
 * all the commits answered together, never inside the append.
 */
export class CommitSignal {
  private readonly listeners = new Set<CommitListener>();
  private due = false;
  private ownWrites: OwnWrite[] = [];

  /** True while anyone watches: a store polls for other writers only then. */
  get watched(): boolean {
    return this.listeners.size > 0;
  }

  watch(listener: CommitListener): StopWatching {
    // A wrapper per watch, so one listener watched twice is two watches, each stopped on its own.
    const entry: CommitListener = (notice) => listener(notice);
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  /**
   * This handle appended `batch` at `result`, durably. Only while watched does it cost more than a check:
   * the range and the events' shared time are worked out for the next notice.
   */
  wrote(batch: readonly StreamAppend[], result: AppendResult): void {
    if (this.listeners.size === 0) return;
    let count = 0;
    let time: number | undefined;
    let oneTime = true;
    for (const s of batch) {
      for (const e of s.events) {
        if (count++ === 0) time = e.time;
        else if (e.time !== time) oneTime = false;
      }
    }
    if (count > 0) {
      if (this.ownWrites.length >= OWN_WRITES_HELD) this.ownWrites.shift();
      this.ownWrites.push({ first: result.lastPosition - count + 1, last: result.lastPosition, time: oneTime ? time : undefined });
    }
    this.notify();
  }

  notify(): void {
    if (this.due || this.listeners.size === 0) return;
    this.due = true;
    // A microtask: after the append that notified has answered, before any timer (the core owns none).
    queueMicrotask(this.deliver);
  }

  /** One function for every notice (a closure per append was garbage on every call of a watched store). */
  private readonly deliver = (): void => {
    this.due = false;
    const notice: CommitNotice = { ownWrites: this.ownWrites };
    this.ownWrites = [];
    // The listeners as they were when the notice went out (one may stop or add another); a lone one
    // is told without a copy of the set, and nobody it adds hears this notice.
    if (this.listeners.size === 1) {
      for (const listener of this.listeners) {
        tell(listener, notice);
        break;
      }
    } else for (const listener of [...this.listeners]) tell(listener, notice);
  };
}

function tell(listener: CommitListener, notice: CommitNotice): void {
  try {
    listener(notice);
  } catch {
    // A watcher's failure is its own: the other watchers and the writer go on.
  }
}

/** Calls `tick` every so often until the returned function is called (an adapter's timer, unref'd). */
export type Poll = (tick: () => void) => () => void;

/**
 * Polls a cheap question ("has anyone else written?") while the signal is watched, and notifies when the
 * answer is yes. Stores whose other writers are other processes (a SQLite file, a PostgreSQL database)
 * use it, each with its own timer (`poll`): the core keeps none.
 */
export class ForeignWrites {
  private stopPolling: (() => void) | undefined;
  private asking = false;

  constructor(
    private readonly signal: CommitSignal,
    /** Answers true when another writer committed since it last answered. */
    private readonly changed: () => boolean | Promise<boolean>,
    private readonly poll: Poll,
  ) {}

  /** Starts or stops polling as the signal gains its first watcher or loses its last. */
  follow(): void {
    if (this.signal.watched && !this.stopPolling) {
      this.stopPolling = this.poll(() => void this.ask());
      // The first answer only sets what "changed" is measured from; a commit that came between the
      // watcher's own first read and it would go unheard, so the watchers are told once regardless.
      void this.ask().then(() => this.signal.notify());
    } else if (!this.signal.watched && this.stopPolling) {
      this.stop();
    }
  }

  stop(): void {
    this.stopPolling?.();
    this.stopPolling = undefined;
  }

  private async ask(): Promise<void> {
    if (this.asking) return;
    this.asking = true;
    try {
      if (await this.changed()) this.signal.notify();
    } catch {
      // The store is away: the next tick asks again, and a reader's own read reports the outage.
    } finally {
      this.asking = false;
    }
  }
}
