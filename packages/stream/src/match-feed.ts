import type { EventStore, StoredEvent } from '@sdp/core';

/** The event that carries what a write matched for an account's stream subscriptions. */
export const MATCHED_TYPE = 'StreamInteractionsMatched';
const PAGE = 256;

/**
 * Follows the log by position for `StreamInteractionsMatched`, from the head it finds at start: every
 * process that serves streams reads every match, whichever process's write made it, in the log's order.
 * It reads only that type (an indexed read on SQLite and PostgreSQL), every `pollMs` of real time, and
 * at once when told a write was made here (`nudge`).
 */
export class MatchFeed {
  private after = 0;
  private timer: NodeJS.Timeout | undefined;
  private reading: Promise<void> | undefined;
  private again = false;
  private stopped = false;

  constructor(
    private readonly store: EventStore,
    private readonly deliver: (event: StoredEvent) => void,
    private readonly pollMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  async start(): Promise<void> {
    this.after = await this.store.head();
    this.stopped = false;
    this.timer = setInterval(() => this.nudge(), this.pollMs);
    this.timer.unref();
  }

  /** Reads what is new now (one read at a time; a nudge during a read asks for one more). */
  nudge(): Promise<void> {
    if (this.stopped) return Promise.resolve();
    if (this.reading) {
      this.again = true;
      return this.reading;
    }
    this.reading = this.read().finally(() => {
      this.reading = undefined;
      if (this.again && !this.stopped) {
        this.again = false;
        void this.nudge();
      }
    });
    return this.reading;
  }

  private async read(): Promise<void> {
    try {
      for (;;) {
        const page = await this.store.readTypes([MATCHED_TYPE], this.after, PAGE);
        for (const event of page) {
          this.after = event.position;
          this.deliver(event);
        }
        if (page.length < PAGE || this.stopped) return;
      }
    } catch (error) {
      this.onError(error);
    }
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    await this.reading;
  }
}
