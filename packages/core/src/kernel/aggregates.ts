import type { Decider, DomainEvent } from './decider.ts';
import type { EventStore, Snapshot } from './event-store.ts';
import type { StoredEvent } from './events.ts';
import { streamNamer } from './stream-names.ts';

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

/**
 * Loads aggregates: the newest state this process knows of each is kept folded in a cache, and a load
 * reads only the events written since. Either way, a call's append checks that every stream it read is
 * still at the version it was read at (the read guards of `UnitOfWork`), so a decision is never taken on
 * a state another writer had moved. Cached states are immutable, so sharing them is safe.
 *
 * The one fast path: over the memory store, or a store this engine is the sole writer of (one server
 * process on SQLite), a cached state is answered at once, with no read. Only engines in this process
 * write there (or, rarely, a tool beside it), and when one did, the other's append fails its guard, the
 * unit marks what it read `stale`, and the retry's load reads the events written since (the engine
 * benchmark's charged call loads two aggregates this way). A store other processes share is read for
 * the tail on every load: a process that decided on its cache alone would find out it was behind only by
 * losing its append, and a busy process pipelining its writes would then starve the others.
 */
export class AggregateLoader {
  private cache = new Map<string, Loaded<unknown>>();
  /** The key set last, already the newest in the cache's order: setting it again needs no reordering. */
  private newest: string | undefined;
  /** Cached states another writer may have moved past (a conflict said so): the next load catches up. */
  private readonly behind = new Set<string>();
  private readonly capacity: number;
  private readonly keyNames = new Map<string, (stream: string) => string>();
  /** Whether a cached state may be used without reading the tail (the store lives in this process). */
  private readonly trusted: boolean;
  /** Read models (the recording index) catch up from the same store the aggregates load from. */
  readonly store: EventStore;

  /**
   * `trusted`: whether this process is the store's only writer, so its cached states may be used without
   * reading the tail (by default, when the store lives in this process).
   */
  constructor(store: EventStore, capacity = 50_000, trusted = store.inProcess === true) {
    this.store = store;
    this.capacity = capacity;
    this.trusted = trusted;
  }

  /** The aggregate's state and the version it was folded at. */
  load<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, stream: string, key = this.keyOf(decider, stream)): Loaded<S> | Promise<Loaded<S>> {
    const cached = this.cache.get(key) as Loaded<S> | undefined;
    if (cached && this.trusted && (this.behind.size === 0 || !this.behind.has(key))) return cached;
    return this.read(decider, stream, key, cached);
  }

  /** Whether cached states are answered without reading the store (a sole writer's or the memory store's). */
  get answersFromMemory(): boolean {
    return this.trusted;
  }

  /** Whether `load` would answer this aggregate from the cache, reading nothing. */
  answersFromCache(decider: { name: string }, stream: string): boolean {
    const key = this.keyOf(decider, stream);
    return this.trusted && this.cache.has(key) && (this.behind.size === 0 || !this.behind.has(key));
  }

  /**
   * The reads a load that misses the cache makes (the snapshot, then the events after it), with the cache
   * left as it is: a refused credential does the same store work whether or not its account is cached.
   */
  async readAsIfMissed(decider: { name: string }, stream: string): Promise<void> {
    const snap = this.store.readSnapshot ? await this.store.readSnapshot(stream, decider.name) : undefined;
    await this.store.readStream(stream, snap?.version ?? 0);
  }

  /**
   * The aggregate's state with the events written since the cache's state read, even from a trusted cache:
   * for a view that decides nothing (an operator's look at an account) in a process that trusts its cache
   * as its accounts' one writer, when another process may own the account (`sdp serve --workers`).
   */
  loadCurrent<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, stream: string): Loaded<S> | Promise<Loaded<S>> {
    const key = this.keyOf(decider, stream);
    this.stale(key);
    return this.load(decider, stream, key);
  }

  /** Drops what the cache holds for an aggregate (see `forget`). */
  forgetStream(decider: { name: string }, stream: string): void {
    this.forget(this.keyOf(decider, stream));
  }

  /** The cache's key of an aggregate: the same string each time for the same stream (see `streamNamer`). */
  keyOf(decider: { name: string }, stream: string): string {
    let name = this.keyNames.get(decider.name);
    if (name === undefined) {
      name = streamNamer(`${decider.name}|`, this.capacity);
      this.keyNames.set(decider.name, name);
    }
    return name(stream);
  }

  private async read<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, stream: string, key: string, cached: Loaded<S> | undefined): Promise<Loaded<S>> {
    let base = cached;
    let events: StoredEvent[] | undefined = base ? await this.store.readStream(stream, base.version) : undefined;
    if (base?.pending && events!.length > 0) {
      // Someone else wrote after a state of ours that is not durable yet: that state will fail; read afresh.
      this.forget(key);
      base = undefined;
      events = undefined;
    }
    if (!base && this.store.readSnapshot) {
      const snap = await this.store.readSnapshot(stream, decider.name);
      if (snap) base = { state: snap.state as S, version: snap.version };
    }
    let state = base ? base.state : decider.initialState();
    let version = base ? base.version : 0;
    events ??= await this.store.readStream(stream, version);
    if (base === cached && this.cache.get(key) !== cached) {
      // The cached state was dropped or replaced while the store answered (a write built on it failed):
      // deciding on it now could meet another write of the same version with other events; load again.
      return this.load(decider, stream, key);
    }
    this.behind.delete(key);
    if (events.length === 0 && base) return base;
    for (const e of events) state = decider.evolve(state, e as unknown as E);
    if (events.length > 0) version = events[events.length - 1]!.version;
    const loaded = { state, version };
    this.remember(key, loaded);
    if (events.length > 0 && crossedSnapshot(base?.version ?? 0, version)) await this.snapshot({ stream, kind: decider.name, version, state });
    return loaded;
  }

  /**
   * Another writer moved `key`'s stream past the cached state (or may have): the next load reads the
   * events written since, and a pending state there is dropped.
   */
  stale(key: string): void {
    if (this.cache.has(key)) this.behind.add(key);
  }

  /** Records a state this process just wrote, so the next load reads nothing. */
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

  /** The pending state of `key` at `version` is durable now (a newer pending one stays pending). */
  settled(key: string, version: number): void {
    const held = this.cache.get(key);
    if (held?.pending && held.version === version) held.pending = false;
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

  snapshotDue(before: number, after: number): boolean {
    return this.store.writeSnapshot !== undefined && crossedSnapshot(before, after);
  }

  async maybeSnapshot(decider: { name: string }, stream: string, before: number, loaded: Loaded<unknown>): Promise<void> {
    if (crossedSnapshot(before, loaded.version)) await this.snapshot({ stream, kind: decider.name, version: loaded.version, state: loaded.state });
  }

  /**
   * A snapshot is a cache: failing to write one (the database gone a moment after a commit) costs only
   * a longer load later, and must never turn a committed call into an error.
   */
  private async snapshot(snapshot: Snapshot): Promise<void> {
    if (!this.store.writeSnapshot) return;
    try {
      await this.store.writeSnapshot(snapshot);
    } catch {
      // The next crossing writes a newer one.
    }
  }

  clear(): void {
    this.cache.clear();
    this.behind.clear();
    this.newest = undefined;
  }
}

function crossedSnapshot(before: number, after: number): boolean {
  return Math.floor(after / SNAPSHOT_EVERY) > Math.floor(before / SNAPSHOT_EVERY);
}
