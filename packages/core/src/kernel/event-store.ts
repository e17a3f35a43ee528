import type { CommitListener, StopWatching } from './commit-signal.ts';
import type { AppendResult, StoredEvent, StreamAppend } from './events.ts';
import type { HostLiveness } from './host-liveness.ts';

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
   * True when every read returns new objects (parsed from disk), which the reader may keep and change:
   * a replay then folds them without copying each event's data first.
   */
  readonly freshReads?: boolean;
  /**
   * True when the store lives in this process' memory, so nothing but this process writes it: a loader may
   * then use the state it has cached without reading the stream's tail first.
   */
  readonly inProcess?: boolean;
  /**
   * True when `append` checks `StreamAppend.expectedLastId`: an engine may then pipeline an account's
   * calls (decide each on the pending writes of those before it) even while other processes write the
   * same streams, since a pending write lost to another writer's write of the same version fails every
   * write decided on top of it.
   */
  readonly checksLastEventId?: boolean;
  /**
   * Liveness records of the processes sharing the store (beside the log, not in it): present where
   * several processes may share it (SQLite files, PostgreSQL), so one can end what a dead one held.
   */
  readonly liveness?: HostLiveness;
}

export interface Snapshot {
  stream: string;
  /** Which decider folded it, and its schema: a snapshot of another kind is ignored. */
  kind: string;
  version: number;
  state: unknown;
}
