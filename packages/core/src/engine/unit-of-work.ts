import type { AggregateLoader } from './aggregates.ts';
import type { Decider, DomainEvent } from './decider.ts';
import type { EventStore } from './event-store.ts';
import type { NewEvent, StreamAppend } from './events.ts';
import type { Clock, Ids } from './ports.ts';

interface Touched {
  decider: Decider<unknown, unknown, DomainEvent>;
  stream: string;
  baseVersion: number;
  state: unknown;
  events: NewEvent[];
}

/**
 * What one call reads and writes: every aggregate it loads keeps the version it was read at, and every
 * event it decides is staged; `appends()` turns them into one atomic write with those expected versions.
 */
export class UnitOfWork {
  private touched = new Map<string, Touched>();
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

  async load<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, stream: string): Promise<S> {
    return (await this.entry(decider, stream)).state as S;
  }

  /** Loads, decides and stages: the new state is visible to later loads in the same call. */
  async execute<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, stream: string, command: C): Promise<{ state: S; events: E[] }> {
    const t = await this.entry(decider, stream);
    const events = decider.decide(command, t.state as S);
    this.stage(t, events);
    return { state: t.state as S, events };
  }

  /** Stages events already decided (used where one decision spans two aggregates). */
  async emit<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, stream: string, events: E[]): Promise<S> {
    const t = await this.entry(decider, stream);
    this.stage(t, events);
    return t.state as S;
  }

  private stage(t: Touched, events: DomainEvent[]): void {
    for (const e of events) {
      t.state = t.decider.evolve(t.state, e);
      t.events.push({ id: this.ids.hex(32), type: e.type, data: e.data, time: this.now });
    }
  }

  private async entry<S, C, E extends DomainEvent>(decider: Decider<S, C, E>, stream: string): Promise<Touched> {
    const key = `${decider.name}|${stream}`;
    let t = this.touched.get(key);
    if (!t) {
      const loaded = await this.loader.load(decider, stream);
      t = {
        decider: decider as unknown as Decider<unknown, unknown, DomainEvent>,
        stream,
        baseVersion: loaded.version,
        state: loaded.state,
        events: [],
      };
      this.touched.set(key, t);
    }
    return t;
  }

  /** Marks what is staged now, so a failed handler can drop its own events and keep the charge. */
  savepoint(): Map<string, { state: unknown; staged: number }> {
    const mark = new Map<string, { state: unknown; staged: number }>();
    for (const [key, t] of this.touched) mark.set(key, { state: t.state, staged: t.events.length });
    return mark;
  }

  rollbackTo(mark: Map<string, { state: unknown; staged: number }>): void {
    for (const [key, t] of this.touched) {
      const m = mark.get(key);
      if (!m) {
        this.touched.delete(key);
        continue;
      }
      t.state = m.state;
      t.events.length = m.staged;
    }
  }

  hasEvents(): boolean {
    for (const t of this.touched.values()) if (t.events.length > 0) return true;
    return false;
  }

  /**
   * The atomic write: streams with new events, each expecting the version it was read at. Streams only
   * read are not checked: a call's decisions depend only on the aggregates it writes.
   */
  appends(): StreamAppend[] {
    const out: StreamAppend[] = [];
    for (const t of this.touched.values()) {
      if (t.events.length > 0) out.push({ stream: t.stream, expectedVersion: t.baseVersion, events: t.events });
    }
    return out;
  }

  /** After a successful write, the loader learns the new states so the next call reads nothing. */
  async settle(): Promise<void> {
    for (const [key, t] of this.touched) {
      if (t.events.length === 0) continue;
      const loaded = { state: t.state, version: t.baseVersion + t.events.length };
      this.loader.remember(key, loaded);
      if (this.loader.snapshotDue(t.baseVersion, loaded.version)) await this.loader.maybeSnapshot(t.decider, t.stream, t.baseVersion, loaded);
    }
  }
}
