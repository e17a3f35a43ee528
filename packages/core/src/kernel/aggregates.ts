import type { Decider, DomainEvent } from './decider.ts';
import type { EventStore, Snapshot } from './event-store.ts';
import type { StoredEvent } from './events.ts';
import { crossedSnapshot, StateCache, type Loaded } from './state-cache.ts';
import { streamNamer } from './stream-names.ts';
import { defaultWritePolicy, type WritePolicy } from './write-policy.ts';

export { SNAPSHOT_EVERY, type Loaded } from './state-cache.ts';

/**
 * Loads aggregates: the newest state this process knows of each is kept folded in a cache, and a load
 * reads only the events written since. Either way, a call's append checks that every stream it read is
 * still at the version it was read at (the read guards of `UnitOfWork`), so a decision is never taken on
 * a state another writer had moved. Cached states are immutable, so sharing them is safe.
 *
 * The one fast path: where the write policy trusts the cache (the memory store, a sole writer, a process
 * that owns its accounts), a cached state is answered at once, with no read. Only engines in this process
 * write there (or, rarely, a tool beside it), and when one did, the other's append fails its guard, the
 * unit marks what it read `stale`, and the retry's load reads the events written since (the engine
 * benchmark's charged call loads two aggregates this way). A store other processes share is read for
 * the tail on every load: a process that decided on its cache alone would find out it was behind only by
 * losing its append, and a busy process pipelining its writes would then starve the others.
 */
export class AggregateLoader {
  /** The states this process knows, and the pending protocol the attempt loop drives over them. */
  readonly states: StateCache;
  private readonly keyNames = new Map<string, (stream: string) => string>();
  /** Whether a cached state may be used without reading the tail (`WritePolicy.trustsCache`). */
  private readonly trusted: boolean;
  /** Read models (the recording index) catch up from the same store the aggregates load from. */
  readonly store: EventStore;

  /** `policy`: the engine's (by default, what the store's capabilities allow when nothing else is known). */
  constructor(store: EventStore, policy: Pick<WritePolicy, 'trustsCache'> = defaultWritePolicy(store.capabilities), capacity = 50_000) {
    this.store = store;
    this.states = new StateCache(capacity, store.writeSnapshot ? (snapshot) => this.snapshot(snapshot) : undefined);
    this.trusted = policy.trustsCache;
  }

  /** The aggregate's state and the version it was folded at. */
  load<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, stream: string, key = this.keyOf(decider, stream)): Loaded<S> | Promise<Loaded<S>> {
    if (this.trusted) {
      const current = this.states.current(key);
      if (current !== undefined) return current as Loaded<S>;
    }
    return this.read(decider, stream, key, this.states.get(key) as Loaded<S> | undefined);
  }

  /** Whether cached states are answered without reading the store (a sole writer's or the memory store's). */
  get answersFromMemory(): boolean {
    return this.trusted;
  }

  /** Whether `load` would answer this aggregate from the cache, reading nothing. */
  answersFromCache(decider: { name: string }, stream: string): boolean {
    const key = this.keyOf(decider, stream);
    return this.trusted && this.states.current(key) !== undefined;
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
    this.states.stale(key);
    return this.load(decider, stream, key);
  }

  /** Drops what the cache holds for an aggregate (see `forget`). */
  forgetStream(decider: { name: string }, stream: string): void {
    this.states.forget(this.keyOf(decider, stream));
  }

  /** The cache's key of an aggregate: the same string each time for the same stream (see `streamNamer`). */
  keyOf(decider: { name: string }, stream: string): string {
    let name = this.keyNames.get(decider.name);
    if (name === undefined) {
      name = streamNamer(`${decider.name}|`, this.states.capacity);
      this.keyNames.set(decider.name, name);
    }
    return name(stream);
  }

  private async read<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, stream: string, key: string, cached: Loaded<S> | undefined): Promise<Loaded<S>> {
    let base = cached;
    let events: StoredEvent[] | undefined = base ? await this.store.readStream(stream, base.version) : undefined;
    if (base?.pending && events!.length > 0) {
      // Someone else wrote after a state of ours that is not durable yet: that state will fail; read afresh.
      this.states.forget(key);
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
    if (base === cached && this.states.get(key) !== cached) {
      // The cached state was dropped or replaced while the store answered (a write built on it failed):
      // deciding on it now could meet another write of the same version with other events; load again.
      return this.load(decider, stream, key);
    }
    this.states.caughtUp(key);
    if (events.length === 0 && base) return base;
    for (const e of events) state = decider.evolve(state, e as unknown as E);
    if (events.length > 0) version = events[events.length - 1]!.version;
    const loaded = { state, version };
    this.states.remember(key, loaded);
    if (events.length > 0 && crossedSnapshot(base?.version ?? 0, version)) await this.snapshot({ stream, kind: decider.name, version, state });
    return loaded;
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

  /** Forgets every cached state (the operator's reset). */
  clear(): void {
    this.states.clear();
  }
}
