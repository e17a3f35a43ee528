import type { Decider, DomainEvent } from './decider.ts';
import type { EventStore, Snapshot } from './event-store.ts';

export interface Loaded<State> {
  state: State;
  version: number;
  /**
   * Set while the events that made this state are decided but not yet durable (a pipelined lane: the
   * account's next call decides on it before the store has acknowledged it). A call that builds on a
   * pending state guards it at append, so if those events fail, so does every decision made on them.
   */
  pending?: boolean;
}

/** Folded states are snapshotted every this many events, so a long stream loads like a short one. */
export const SNAPSHOT_EVERY = 500;

/**
 * Loads aggregates: the newest folded state from an in-process cache (or a snapshot), then only the
 * events written since (by this process or another). Cached states are immutable (immer), so sharing
 * them is safe.
 */
export class AggregateLoader {
  private cache = new Map<string, Loaded<unknown>>();
  /** The key set last, already the newest in the cache's order: setting it again needs no reordering. */
  private newest: string | undefined;
  private readonly capacity: number;
  /** Read models (the recording index) catch up from the same store the aggregates load from. */
  readonly store: EventStore;

  constructor(store: EventStore, capacity = 50_000) {
    this.store = store;
    this.capacity = capacity;
  }

  /**
   * `load` with no await, when the answer is at hand: a cached state and a store that reads in-process.
   * `undefined` when only `load` can answer (a snapshot to read or write, or a store across the wire).
   */
  loadNow<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, stream: string, key = `${decider.name}|${stream}`): Loaded<S> | undefined {
    if (!this.store.readStreamNow) return undefined;
    const base = this.cache.get(key) as Loaded<S> | undefined;
    if (!base) return undefined;
    const events = this.store.readStreamNow(stream, base.version);
    if (events.length === 0) return base;
    // Events after a pending state were written by someone else: the pending ones will fail; read afresh.
    if (base.pending) return this.forget(key), undefined;
    const version = events[events.length - 1]!.version;
    if (crossedSnapshot(base.version, version) && this.store.writeSnapshot) return undefined;
    let state = base.state;
    for (const e of events) state = decider.evolve(state, e as unknown as E);
    const loaded = { state, version };
    this.remember(key, loaded);
    return loaded;
  }

  async load<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, stream: string): Promise<Loaded<S>> {
    const key = `${decider.name}|${stream}`;
    let base = this.cache.get(key) as Loaded<S> | undefined;
    if (base?.pending && (await this.store.readStream(stream, base.version)).length > 0) {
      // Someone else wrote after a state of ours that is not durable yet: that state will fail; read afresh.
      this.forget(key);
      base = undefined;
    }
    if (!base && this.store.readSnapshot) {
      const snap = await this.store.readSnapshot(stream, decider.name);
      if (snap) base = { state: snap.state as S, version: snap.version };
    }
    let state = base ? base.state : decider.initialState();
    let version = base ? base.version : 0;
    // A store that can read in-process (memory) answers without a round through the event loop.
    const events = this.store.readStreamNow ? this.store.readStreamNow(stream, version) : await this.store.readStream(stream, version);
    if (events.length === 0 && base) return base;
    for (const e of events) state = decider.evolve(state, e as unknown as E);
    if (events.length > 0) version = events[events.length - 1]!.version;
    const loaded = { state, version };
    this.remember(key, loaded);
    if (events.length > 0 && crossedSnapshot(base?.version ?? 0, version)) await this.snapshot({ stream, kind: decider.name, version, state });
    return loaded;
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
      if (oldest !== undefined) this.cache.delete(oldest);
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
    this.newest = undefined;
  }
}

function crossedSnapshot(before: number, after: number): boolean {
  return Math.floor(after / SNAPSHOT_EVERY) > Math.floor(before / SNAPSHOT_EVERY);
}
