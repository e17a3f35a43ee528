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
  /**
   * The same append, answered as a value (a refusal thrown), by a store that writes within the call (the
   * memory store): its `append` is this one's answer as a promise. The attempt loop writes through it, so
   * a call that waits on nothing is answered with no promise at all (`appendsAtOnce` says when it may,
   * once, when the engine is made). Never a promise, atomic as `append`, heard by `watchCommits` as
   * `append` is: `storeContract` holds a store that has it to that.
   */
  appendNow?(batch: StreamAppend[]): AppendResult;
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

/**
 * `store.appendNow`, bound, where the store has one and its `append` is still that one's: an `append`
 * replaced nearer than `appendNow` (a subclass, an object made on the store), or answered by a Proxy's
 * `get` (a test's gate, a meter), is written through instead, so every write passes the `append` a
 * wrapper put in front of the store.
 */
export function appendsAtOnce(store: EventStore): ((batch: StreamAppend[]) => AppendResult) | undefined {
  if (typeof store.appendNow !== 'function') return undefined;
  // The nearest owner of each along the prototype chain: `append` must not be owned nearer than `appendNow`.
  for (let o: object | null = store; o !== null; o = Object.getPrototypeOf(o)) {
    const ownsNow = Object.hasOwn(o, 'appendNow');
    if (Object.hasOwn(o, 'append') && !ownsNow) return undefined;
    // A Proxy owns nothing of its own: its target's chain is walked, and only reading `append` through
    // the store itself shows an `append` its `get` answers instead of the owner's.
    if (ownsNow) return store.append === (o as EventStore).append ? store.appendNow.bind(store) : undefined;
  }
  return undefined;
}
