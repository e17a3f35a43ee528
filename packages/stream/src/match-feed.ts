import { followLog, type EventStore, type LogFollower, type StoredEvent } from '@sdp/core/kernel';

/** The event that carries what a write matched for an account's stream subscriptions. */
export const MATCHED_TYPE = 'StreamInteractionsMatched';

/**
 * Follows the log by position for `StreamInteractionsMatched`, from the head it finds at start, with the
 * core's `followLog`: the store's commit notices say when to read (at once for this process' own commits,
 * within about a second for another process' on SQLite or PostgreSQL), the log says what. So every
 * process that serves streams sees every match, whichever process's write made it, in the log's order,
 * and a notice missed loses nothing. Only that type is read (an indexed read on SQLite and PostgreSQL).
 */
export class MatchFeed {
  private follower: LogFollower | undefined;

  constructor(
    private readonly store: EventStore,
    private readonly deliver: (event: StoredEvent) => void,
    private readonly onError: (error: unknown) => void,
  ) {}

  start(): void {
    this.follower ??= followLog(this.store, (events) => {
      for (const event of events) this.deliver(event);
    }, { types: [MATCHED_TYPE], after: 'head', onError: this.onError });
  }

  /** Resolves once everything committed before the call is delivered. */
  caughtUp(): Promise<void> {
    return this.follower?.caughtUp() ?? Promise.resolve();
  }

  stop(): void {
    this.follower?.stop();
    this.follower = undefined;
  }
}
