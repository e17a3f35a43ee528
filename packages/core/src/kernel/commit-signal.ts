/** Stops a watch: the listener hears nothing after it returns. */
export type StopWatching = () => void;

/**
 * What a store tells its watchers: the log may have grown. It carries no events, so a watcher that misses
 * a notice loses nothing: it reads the log from its own position (`followLog`), and one read answers any
 * number of commits.
 */
export type CommitListener = () => void;

/**
 * The watchers of one store and the notices they are owed. A store calls `notify` after each commit it
 * makes (once durable) and whenever it learns of another writer's; the listeners run once per turn of
 * the event loop however many commits came in it, never inside the append, so a slow watcher cannot
 * delay an answer.
 */
export class CommitSignal {
  private readonly listeners = new Set<CommitListener>();
  private due = false;

  /** True while anyone watches: a store polls for other writers only then. */
  get watched(): boolean {
    return this.listeners.size > 0;
  }

  watch(listener: CommitListener): StopWatching {
    // A wrapper per watch, so one listener watched twice is two watches, each stopped on its own.
    const entry: CommitListener = () => listener();
    this.listeners.add(entry);
    return () => {
      this.listeners.delete(entry);
    };
  }

  notify(): void {
    if (this.due || this.listeners.size === 0) return;
    this.due = true;
    setImmediate(() => {
      this.due = false;
      for (const listener of [...this.listeners]) {
        try {
          listener();
        } catch {
          // A watcher's failure is its own: the other watchers and the writer go on.
        }
      }
    });
  }
}

/**
 * Polls a cheap question ("has anyone else written?") while the signal is watched, and notifies when the
 * answer is yes. Stores whose other writers are other processes (a SQLite file, a PostgreSQL database)
 * use it; the timer never keeps a process alive.
 */
export class ForeignWrites {
  private timer: ReturnType<typeof setInterval> | undefined;
  private asking = false;

  constructor(
    private readonly signal: CommitSignal,
    /** Answers true when another writer committed since it last answered. */
    private readonly changed: () => boolean | Promise<boolean>,
    private readonly everyMs: number,
  ) {}

  /** Starts or stops polling as the signal gains its first watcher or loses its last. */
  follow(): void {
    if (this.signal.watched && !this.timer) {
      this.timer = setInterval(() => void this.ask(), this.everyMs);
      this.timer.unref?.();
      // The first answer only sets what "changed" is measured from; a commit that came between the
      // watcher's own first read and it would go unheard, so the watchers are told once regardless.
      void this.ask().then(() => this.signal.notify());
    } else if (!this.signal.watched && this.timer) {
      this.stop();
    }
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
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
