import type { AggregateLoader } from './aggregates.ts';
import type { Decider, DomainEvent } from './decider.ts';
import type { EventStore } from './event-store.ts';
import type { NewEvent, StreamAppend } from './events.ts';
import type { UnitEntry } from './state-cache.ts';
import type { Clock, Ids } from './ports.ts';

/** What `savepoint` marked (opaque: only `rollbackTo` of the same unit reads it). */
export type Savepoint = { readonly __savepoint: unique symbol };

interface Touched extends UnitEntry {
  /** The loader's key of the aggregate. */
  key: string;
  decider: Decider<unknown, unknown, DomainEvent>;
  stream: string;
  baseVersion: number;
  /** The state as read (a rollback past this aggregate's first read returns to it). */
  base: unknown;
  state: unknown;
  events: NewEvent[];
  /** Read from a state whose events were not yet durable (see `Loaded.pending`). */
  pending: boolean;
  /** That pending state's last event id, which the write expects the stream still to end with. */
  lastId: string | undefined;
}

/**
 * What one call reads and writes: every aggregate it loads keeps the version it was read at, and every
 * event it decides is staged; `appends()` turns them into one atomic write that expects every stream the
 * call read, written or not, still at that version. A decision is only ever taken on states the store
 * confirms were current when it was written (the loader answers from its cache without asking).
 */
export class UnitOfWork {
  /** In the order first touched; a call touches a handful, so a scan costs less than a keyed map. */
  private touched: Touched[] = [];
  readonly now: number;

  constructor(
    private readonly loader: AggregateLoader,
    private readonly ids: Ids,
    clock: Clock,
  ) {
    this.now = clock.now();
  }

  /** The store behind this call, for read models that catch up from the log (never for writes). */
  get store(): EventStore {
    return this.loader.store;
  }

  /**
   * The aggregate's state as this call sees it: what it read, with what it has staged since. A value
   * when the loader has it at hand, a promise when the store must be read: a caller that awaits only a
   * promise (`instanceof Promise`) spends no turn of the event loop on a state it already holds.
   */
  load<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, stream: string): S | Promise<S> {
    const t = this.entry(decider, stream);
    return t instanceof Promise ? t.then((x) => x.state as S) : (t.state as S);
  }

  /**
   * Loads, decides and stages: the new state is visible to later loads in the same call. A value (or a
   * thrown refusal) when the state was at hand, else a promise, as with `load`.
   */
  execute<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, stream: string, command: C): { state: S; events: E[] } | Promise<{ state: S; events: E[] }> {
    const t = this.entry(decider, stream);
    if (t instanceof Promise) return t.then((x) => this.decide(x, decider, command));
    return this.decide(t, decider, command);
  }

  private decide<S, C, E extends DomainEvent>(t: Touched, decider: Decider<S, C, E>, command: C): { state: S; events: E[] } {
    const events = decider.decide(command, t.state as S);
    for (const e of events) {
      t.state = t.decider.evolve(t.state, e);
      const staged: NewEvent = { id: this.ids.hex(32), type: e.type, data: e.data, time: this.now };
      // A unit stages one event on most aggregates it writes: a one-element array, where the first push
      // onto an empty one allocates room for sixteen.
      if (t.events.length === 0) t.events = [staged];
      else t.events.push(staged);
    }
    return { state: t.state as S, events };
  }

  /**
   * What this unit holds of the aggregate, or the loader's state of it; with no await when the loader has
   * it at hand (its one fast path), so the promise `load` and `execute` hand back is the call's only turn.
   */
  private entry<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, stream: string): Touched | Promise<Touched> {
    const held = this.held(decider, stream);
    if (held) return held;
    const key = this.loader.keyOf(decider, stream);
    const loaded = this.loader.load(decider, stream, key);
    if (!(loaded instanceof Promise)) return this.enter(key, decider, stream, loaded);
    // Another load of the same aggregate may have finished while this one waited: the first one stands.
    return loaded.then((l) => this.held(decider, stream) ?? this.enter(key, decider, stream, l));
  }

  private held(decider: unknown, stream: string): Touched | undefined {
    const touched = this.touched;
    for (let i = 0; i < touched.length; i++) {
      const t = touched[i]!;
      if (t.stream === stream && t.decider === decider) return t;
    }
    return undefined;
  }

  private enter(key: string, decider: unknown, stream: string, loaded: { state: unknown; version: number; pending?: boolean; lastId?: string }): Touched {
    const t: Touched = {
      key,
      decider: decider as Decider<unknown, unknown, DomainEvent>,
      stream,
      baseVersion: loaded.version,
      base: loaded.state,
      state: loaded.state,
      events: [],
      pending: loaded.pending === true,
      lastId: loaded.pending === true ? loaded.lastId : undefined,
    };
    this.touched.push(t);
    return t;
  }

  /**
   * Marks what is staged now, so a failed handler can drop its own events and keep the charge. Aggregates
   * are only ever added to a unit, so the mark is each one's state and staged count in the order they
   * were first touched; those read after the mark stay read (the refusal depended on them: they are
   * guarded) with nothing staged.
   */
  savepoint(): Savepoint {
    // Sized up front: an empty array's first push allocates room for sixteen, on every call.
    const touched = this.touched;
    const mark: unknown[] = new Array(touched.length * 2);
    for (let i = 0; i < touched.length; i++) {
      mark[2 * i] = touched[i]!.state;
      mark[2 * i + 1] = touched[i]!.events.length;
    }
    return mark as unknown as Savepoint;
  }

  rollbackTo(savepoint: Savepoint): void {
    const mark = savepoint as unknown as unknown[];
    let i = 0;
    for (const t of this.touched) {
      if (i >= mark.length) {
        t.state = t.base;
        t.events.length = 0;
        continue;
      }
      t.state = mark[i];
      t.events.length = mark[i + 1] as number;
      i += 2;
    }
  }

  /**
   * The atomic write: every stream the call touched, each expecting the version it was read at, those it
   * only read as guards with no events. If another writer moved any of them (a package change, a denial,
   * an identity's limit, a deleted query, or a pending state of ours that never became durable), nothing
   * is written and the call is decided again on the states as they now are.
   */
  appends(): StreamAppend[] {
    const touched = this.touched;
    const out: StreamAppend[] = new Array(touched.length);
    for (let i = 0; i < touched.length; i++) {
      const t = touched[i]!;
      out[i] = { stream: t.stream, expectedVersion: t.baseVersion, events: t.events, expectedLastId: t.lastId };
    }
    return out;
  }

  /** Only the guards of `appends`: what a call that writes nothing checks before it answers. */
  guards(): StreamAppend[] {
    const touched = this.touched;
    const out: StreamAppend[] = new Array(touched.length);
    for (let i = 0; i < touched.length; i++) {
      const t = touched[i]!;
      out[i] = { stream: t.stream, expectedVersion: t.baseVersion, events: [], expectedLastId: t.lastId };
    }
    return out;
  }

  /**
   * What the unit read and decided, aggregate by aggregate, for the state cache's pending protocol (which
   * the attempt loop drives: `StateCache.pending`, `durable`, `failed`).
   */
  entries(): readonly UnitEntry[] {
    return this.touched;
  }
}
