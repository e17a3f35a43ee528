import type { CommitListener, StopWatching } from './commit-signal.ts';
import type { AppendResult, StoredEvent, StreamAppend } from './events.ts';
import type { StoreCapabilities } from './store-capabilities.ts';

/**
 * The store cannot be reached (a database server away, a connection cut). Adapters throw it (or a
 * subclass) so the engine answers 503 with `Retry-After` instead of an internal error.
 */
export class StoreUnavailable extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'StoreUnavailable';
  }
}

/**
 * The storage port. Every adapter (memory, SQLite, PostgreSQL) passes the same contract suite in
 * `@sdp/testing`.
 */
export interface EventStore {
  /**
   * Appends to several streams in one atomic write. Each stream must be at its expected version
   * (`ANY_VERSION` skips the check) or nothing is written and a `VersionConflict` is thrown.
   */
  append(batch: StreamAppend[]): Promise<AppendResult>;
  /** A stream's events with `version > afterVersion`, in version order. */
  readStream(stream: string, afterVersion?: number): Promise<StoredEvent[]>;
  /** Events with `position > afterPosition` in global order, at most `limit` of them. */
  readAll(afterPosition?: number, limit?: number): Promise<StoredEvent[]>;
  /**
   * Events of the named types with `position > afterPosition` in global order, at most `limit` of them:
   * a projection reads only what it folds, however much else the log holds.
   */
  readTypes(types: readonly string[], afterPosition?: number, limit?: number): Promise<StoredEvent[]>;
  /** The highest position written so far (0 when empty). */
  head(): Promise<number>;
  /**
   * The commit observer: `listener` is told, after the fact and at most once a turn, that the log may
   * have grown: at once for this store's own commits (once durable), within about a second for another
   * process' on the same data. It carries no events: read them by position (`followLog` does).
   */
  watchCommits(listener: CommitListener): StopWatching;
  /**
   * Drops the events of the named types at or before `throughPosition` in the streams whose names begin
   * with `streamPrefix` (`''`: every stream), from the log and from their streams, except the last event
   * of each stream (so a stream's version never goes back, nor the log's
   * head: positions are never handed out twice). Only for transient events, which no decision needs and
   * whose readers follow the log live: the stream product's matched interactions (`MATCHES_KEPT_MS`).
   * Answers how many went. A store without it keeps them.
   */
  dropTypes?(types: readonly string[], throughPosition: number, streamPrefix: string): Promise<number>;
  /** Snapshots: a folded state at a stream version, so long streams load in constant time. */
  readSnapshot?(stream: string, kind: string): Promise<Snapshot | undefined>;
  writeSnapshot?(snapshot: Snapshot): Promise<void>;
  /** Empties the store (the operator's reset; test suites). */
  clear(): Promise<void>;
  close(): Promise<void>;
  /**
   * What the store is and can do beyond these methods (who else writes its data, which checks its append
   * makes): the server chooses the engine's `WritePolicy` from it once, at start-up.
   */
  readonly capabilities: StoreCapabilities;
}

export interface Snapshot {
  stream: string;
  /** Which decider folded it, and its schema: a snapshot of another kind is ignored. */
  kind: string;
  version: number;
  state: unknown;
}
