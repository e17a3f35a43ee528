import type { Decider, DomainEvent } from './decider.ts';
import type { Snapshot } from './event-store.ts';
import type { NewEvent } from './events.ts';

export interface Loaded<State> {
  state: State;
  version: number;
  /**
   * Set while the events that made this state are decided but not yet durable (a pipelined lane: the
   * account's next call decides on it before the store has acknowledged it). A call that builds on a
   * pending state guards it at append, so if those events fail, so does every decision made on them.
   */
  pending?: boolean;
  /** The id of the last event folded into a pending state (see `StreamAppend.expectedLastId`). */
  lastId?: string;
}

/** Folded states are snapshotted every this many events, so a long stream loads like a short one. */
export const SNAPSHOT_EVERY = 500;

export function crossedSnapshot(before: number, after: number): boolean {
  return Math.floor(after / SNAPSHOT_EVERY) > Math.floor(before / SNAPSHOT_EVERY);
}

/** One aggregate a unit of work read, as the pending protocol reads it (`UnitOfWork.entries`). */
export interface UnitEntry {
  /** The cache's key of the aggregate. */
  readonly key: string;
  readonly decider: Decider<unknown, unknown, DomainEvent>;
  readonly stream: string;
  /** The version it was read at. */
  readonly baseVersion: number;
  /** The state with the unit's events folded in. */
  readonly state: unknown;
  /** The events the unit decided on it (none: only read). */
  readonly events: readonly NewEvent[];
  /** Read from a pending state. */
  readonly pending: boolean;
}

/**
 * The newest folded state of each stream this process knows, bounded (least recently set goes first), and
 * the pending protocol over it: a write's states enter marked pending (`pending`), stop being pending
 * once durable (`durable`), and are dropped if it fails (`failed`). The attempt loop drives the protocol
 * (`pipeline/attempt-loop.ts` says in which order); the loader reads and fills the cache on loads.
 * Cached states are immutable, so sharing them is safe.
 */
export class StateCache {
  private cache = new Map<string, Loaded<unknown>>();
  /** The key set last, already the newest in the cache's order: setting it again needs no reordering. */
  private newest: string | undefined;
  /** Cached states another writer may have moved past (a conflict said so): the next load catches up. */
  private readonly behind = new Set<string>();

  /**
   * `snapshot`: writes a folded state as a snapshot (never throws); absent where the store keeps none.
   */
  constructor(
    readonly capacity: number,
    private readonly snapshot: ((snapshot: Snapshot) => Promise<void>) | undefined,
  ) {}

  /** The cached state of `key` unless another writer may have moved past it. */
  current(key: string): Loaded<unknown> | undefined {
    const cached = this.cache.get(key);
    return cached !== undefined && (this.behind.size === 0 || !this.behind.has(key)) ? cached : undefined;
  }

  /** The cached state of `key`, behind or not. */
  get(key: string): Loaded<unknown> | undefined {
    return this.cache.get(key);
  }

  /** A load read the stream's tail: the cached state is current again. */
  caughtUp(key: string): void {
    this.behind.delete(key);
  }

  /**
   * Another writer moved `key`'s stream past the cached state (or may have): the next load reads the
   * events written since, and a pending state there is dropped.
   */
  stale(key: string): void {
    if (this.cache.has(key)) this.behind.add(key);
  }

  /** Records a state read or written, so the next load reads nothing (an older one never replaces a newer). */
  remember(key: string, loaded: Loaded<unknown>): void {
    const prev = this.cache.get(key);
    if (prev && prev.version > loaded.version) return;
    if (prev && key === this.newest) {
      this.cache.set(key, loaded);
      return;
    }
    this.cache.delete(key);
    this.cache.set(key, loaded);
    this.newest = key;
    if (this.cache.size > this.capacity) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.forget(oldest);
    }
  }

  /**
   * Drops what the cache holds for `key`: after a failed append, states decided on top of events that
   * never became durable must not be read again (the next load reads the store).
   */
  forget(key: string): void {
    this.cache.delete(key);
    this.behind.delete(key);
    if (this.newest === key) this.newest = undefined;
  }

  clear(): void {
    this.cache.clear();
    this.behind.clear();
    this.newest = undefined;
  }

  // ---- The pending protocol: only the attempt loop calls these ----

  /** A write's new states enter the cache marked pending, so the account's next call decides on them. */
  pending(entries: readonly UnitEntry[]): void {
    for (let i = 0; i < entries.length; i++) {
      const t = entries[i]!;
      const n = t.events.length;
      if (n === 0) continue;
      this.remember(t.key, { state: t.state, version: t.baseVersion + n, pending: true, lastId: t.events[n - 1]!.id });
    }
  }

  /**
   * The write is durable: its states are no longer pending (a newer pending one stays pending); snapshots
   * due are written. A promise only when a snapshot is being written, so the common call settles with no
   * await.
   */
  durable(entries: readonly UnitEntry[]): Promise<void> | undefined {
    let snapshots: Promise<void> | undefined;
    for (let i = 0; i < entries.length; i++) {
      const t = entries[i]!;
      if (t.events.length === 0) continue;
      const version = t.baseVersion + t.events.length;
      const held = this.cache.get(t.key);
      if (held?.pending && held.version === version) held.pending = false;
      const snapshot = this.snapshot;
      if (snapshot !== undefined && crossedSnapshot(t.baseVersion, version)) {
        const write = () => snapshot({ stream: t.stream, kind: t.decider.name, version, state: t.state });
        snapshots = snapshots ? snapshots.then(write) : write();
      }
    }
    return snapshots;
  }

  /**
   * The write failed: every state it put in the cache, and every pending state it read, is dropped; what
   * it only read may have been moved by another writer (a conflict), so the next load catches up.
   */
  failed(entries: readonly UnitEntry[]): void {
    for (let i = 0; i < entries.length; i++) {
      const t = entries[i]!;
      if (t.events.length > 0 || t.pending) this.forget(t.key);
      else this.stale(t.key);
    }
  }
}
