import type { EventStore } from './event-store.ts';
import type { StoredEvent } from './events.ts';

/**
 * Events read per page while catching up: bounds what one read holds in memory. The largest events a
 * tenant can write are recorded-interaction slices (about 64 KiB of interactions and one more of at most
 * 64 KiB), so a page holds at most about 64 MiB whatever was written (a restart reads the log this way).
 */
export const CATCH_UP_PAGE = 500;

/**
 * Names a projection in a `Projections` set and carries its type, so a handler gets the projection it
 * asks for without a cast, and the layers that pass the set along need not know what is in it.
 */
export class ProjectionKey<P extends Projection> {
  /** Never set: only the type checker reads it. */
  declare readonly projection?: P;
  readonly name: string;
  constructor(name: string) {
    this.name = name;
  }
}

/** The projections an engine owns, by key: its calls reach them through their context. */
export class Projections implements Iterable<Projection> {
  private readonly held = new Map<ProjectionKey<Projection>, Projection>();

  with<P extends Projection>(key: ProjectionKey<P>, projection: P): this {
    this.held.set(key, projection);
    return this;
  }

  get<P extends Projection>(key: ProjectionKey<P>): P {
    const held = this.held.get(key);
    if (!held) throw new Error(`No projection ${key.name} was given to this engine`);
    return held as P;
  }

  [Symbol.iterator](): Iterator<Projection> {
    return this.held.values();
  }
}

export interface ProjectionProgress {
  /** The log position read up to. */
  checkpoint: number;
  /** The store's highest position. */
  head: number;
  /** Positions written after the checkpoint (all of the log when it was emptied under the projection). */
  lag: number;
}

/**
 * A read model folded from the global log, owned by whoever builds it (no module-level state, so two
 * engines on two stores never share one). It asks the store only for the event types it folds, and keeps
 * a checkpoint: the log position it has read up to. A catch-up reads only what was written after it, so
 * the cost of a read follows what is new, not the size of the log.
 */
export abstract class Projection {
  /** The event types `apply` folds: the store is asked for nothing else. */
  abstract readonly types: readonly string[];
  /** Folds one event of `types`, in log order, each exactly once (until `forget`). */
  protected abstract apply(event: StoredEvent): void;
  /** Drops everything folded: the log is read again from the start. */
  protected abstract forget(): void;

  readonly store: EventStore;
  private position = 0;
  private running: Promise<void> | undefined;
  /** The catch-up that starts when the running one ends, shared by everyone who asked meanwhile. */
  private queued: Promise<void> | undefined;
  /** Bumped by `reset`, so a catch-up in flight across a reset starts again instead of mixing logs. */
  private generation = 0;

  constructor(store: EventStore) {
    this.store = store;
  }

  /**
   * The log position read up to: every event of `types` at or before it has been applied. It passes the
   * last event applied when the log holds later events of other types, so the lag can reach 0.
   */
  get checkpoint(): number {
    return this.position;
  }

  /**
   * Reads what was written since the checkpoint. A caller that arrives while a catch-up runs may have
   * written after that one read the head, so it waits for the next, which everyone arriving meanwhile shares.
   */
  catchUp(): Promise<void> {
    if (!this.running) return this.start();
    this.queued ??= this.running.then(
      () => ((this.queued = undefined), this.start()),
      () => ((this.queued = undefined), this.start()),
    );
    return this.queued;
  }

  /**
   * How far the projection trails the log: positions written after its checkpoint (0 once caught up
   * and nothing new was written). A log emptied under it (a reset elsewhere) counts as all of it.
   */
  async lag(): Promise<number> {
    return (await this.progress()).lag;
  }

  /** The checkpoint, the store's head and the lag between them, read together (the operator's view). */
  async progress(): Promise<ProjectionProgress> {
    const checkpoint = this.position;
    const head = await this.store.head();
    return { checkpoint, head, lag: head < checkpoint ? head : head - checkpoint };
  }

  /**
   * Folds an event its store told of as it was stored (`MemoryStoreOptions.onStored`) rather than through
   * the log: for a store that keeps events of these types out of the log (a simulation's, which holds no
   * recorded interaction twice). Events must come in position order and never also from the log; the
   * checkpoint is left to the catch-ups, which may still read other types from the log.
   */
  heard(event: StoredEvent): void {
    if (this.types.includes(event.type)) this.apply(event);
  }

  /** Forgets everything and the checkpoint: the next catch-up reads the log from the start. */
  reset(): void {
    this.generation++;
    this.position = 0;
    this.forget();
  }

  private start(): Promise<void> {
    const run = this.readNew().finally(() => {
      if (this.running === run) this.running = undefined;
    });
    this.running = run;
    return run;
  }

  /**
   * The head is read first: every event at or below it is visible to the reads that follow (the memory
   * store and SQLite serialize appends; PostgreSQL answers its safe head, below which nothing commits later), and the checkpoint may
   * move to it even when the last of those events is of another type.
   */
  private async readNew(): Promise<void> {
    for (;;) {
      const generation = this.generation;
      const head = await this.store.head();
      // The log is shorter than what was read: it was emptied (a reset by another process); start again.
      if (head < this.position) this.reset();
      else if (generation !== this.generation) continue;
      if (await this.readAfterCheckpoint(this.generation)) {
        if (head > this.position) this.position = head;
        return;
      }
    }
  }

  /** Applies every event of `types` after the checkpoint; false when a reset came in between. */
  private async readAfterCheckpoint(generation: number): Promise<boolean> {
    for (;;) {
      const page = await this.store.readTypes(this.types, this.position, CATCH_UP_PAGE);
      if (generation !== this.generation) return false;
      for (const e of page) {
        this.apply(e);
        this.position = e.position;
      }
      if (page.length < CATCH_UP_PAGE) return true;
    }
  }
}
