import { MATCHED_TYPE } from '@sdp/core/internal';
import { followLog, type EventStore, type LogFollower, type StoredEvent } from '@sdp/core/kernel';

/** A connection's end: another process may end one of this process's (its host taken for dead). */
export const DISCONNECTED_TYPE = 'StreamDisconnected';

/**
 * Follows the log by position for `StreamInteractionsMatched`, from the head it finds at start, with the
 * core's `followLog`: the store's commit notices say when to read (at once for this process' own commits,
 * within about a second for another process' on SQLite or PostgreSQL), the log says what. So every
 * process that serves streams sees every match, whichever process's write made it, in the log's order,
 * and a notice missed loses nothing. Only that type is read (an indexed read on SQLite and PostgreSQL).
 */
export class MatchFeed {
  private follower: LogFollower | undefined;
  /** Where a paused feed resumes: the position it had handed over up to ('head' before it first ran). */
  private resumeAfter: number | 'head' = 'head';

  constructor(
    private readonly store: EventStore,
    /** Handed each page read, in the log's order. */
    private readonly deliver: (page: StoredEvent[]) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  /** Follows the log from where it stopped (from the head, the first time). Idempotent. */
  start(): void {
    this.follower ??= followLog(this.store, (events) => this.deliver(events), { types: [MATCHED_TYPE, DISCONNECTED_TYPE], after: this.resumeAfter, onError: this.onError });
  }

  /**
   * Stops reading while this process has no connection: a server nobody streams from does not read the
   * log after every commit. Matches are written only for live subscriptions, so what a paused feed skips
   * over when it resumes is what other processes' subscribers were sent, read once.
   */
  pause(): void {
    if (!this.follower) return;
    const position = this.follower.position;
    this.follower.stop();
    this.follower = undefined;
    // Before its first read the follower has no position of its own: it would resume from the head.
    if (position >= 0) this.resumeAfter = position;
  }

  /** Resolves once everything committed before the call is delivered (at once while paused). */
  caughtUp(): Promise<void> {
    return this.follower?.caughtUp() ?? Promise.resolve();
  }

  stop(): void {
    this.pause();
  }
}
