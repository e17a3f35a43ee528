import type { CommitListener, StopWatching } from './commit-signal.ts';
import { appendsAtOnce, type EventStore, type Snapshot } from './event-store.ts';
import type { StoreCapabilities } from './store-capabilities.ts';
import type { AppendResult, StoredEvent, StreamAppend } from './events.ts';
import type { Upcasters } from './upcasters.ts';

/**
 * A store seen through an event schema: every read (a stream, the whole log) answers events in their
 * type's current version, every write stamps new events with it, and snapshots are kept per schema (a
 * state folded before an upcaster was registered is not loaded after it). The loader, the unit of work,
 * replay and every read model read through it, so none of them holds an event in an old shape.
 */
export class EvolvingStore implements EventStore {
  // Present exactly when the written store has them.
  declare readonly readSnapshot?: (stream: string, kind: string) => Promise<Snapshot | undefined>;
  declare readonly writeSnapshot?: (snapshot: Snapshot) => Promise<void>;
  declare readonly dropTypes?: (types: readonly string[], throughPosition: number, streamPrefix: string) => Promise<number>;
  declare readonly appendNow?: (batch: StreamAppend[]) => AppendResult;
  /** The written store's: the schema changes the shape of events, not what the store can do. */
  readonly capabilities: StoreCapabilities;

  constructor(
    /** The store as written: events in the schema versions they were written in. */
    readonly written: EventStore,
    readonly upcasters: Upcasters,
  ) {
    this.capabilities = written.capabilities;
    const signature = upcasters.signature();
    const kindOf = (kind: string): string => (signature === '' ? kind : `${kind}|${signature}`);
    if (written.readSnapshot) {
      this.readSnapshot = async (stream, kind) => {
        const snap = await written.readSnapshot!(stream, kindOf(kind));
        return snap && { ...snap, kind };
      };
    }
    if (written.writeSnapshot) this.writeSnapshot = (snapshot) => written.writeSnapshot!({ ...snapshot, kind: kindOf(snapshot.kind) });
    const now = appendsAtOnce(written);
    // Not where a subclass replaced `append`: its own `appendNow` would be written through instead of it.
    if (now !== undefined && this.append === EvolvingStore.prototype.append) this.appendNow = (batch) => now(this.upcasters.stamp(batch));
    if (written.dropTypes) this.dropTypes = (types, throughPosition, streamPrefix) => written.dropTypes!(types, throughPosition, streamPrefix);
  }

  append(batch: StreamAppend[]): Promise<AppendResult> {
    let stamped: StreamAppend[];
    try {
      stamped = this.upcasters.stamp(batch);
    } catch (error) {
      return Promise.reject(error);
    }
    return this.written.append(stamped);
  }

  async readStream(stream: string, afterVersion?: number): Promise<StoredEvent[]> {
    return this.upcasters.upcastAll(await this.written.readStream(stream, afterVersion));
  }

  async readAll(afterPosition?: number, limit?: number): Promise<StoredEvent[]> {
    return this.upcasters.upcastAll(await this.written.readAll(afterPosition, limit));
  }

  /** A type renamed by an upcaster is asked for by the name it was stored under. */
  async readTypes(types: readonly string[], afterPosition?: number, limit?: number): Promise<StoredEvent[]> {
    return this.upcasters.upcastAll(await this.written.readTypes(types, afterPosition, limit));
  }

  head(): Promise<number> {
    return this.written.head();
  }

  watchCommits(listener: CommitListener): StopWatching {
    return this.written.watchCommits(listener);
  }

  clear(): Promise<void> {
    return this.written.clear();
  }

  close(): Promise<void> {
    return this.written.close();
  }
}

/** `store` seen through `upcasters` (itself when it already is). */
export function evolvingStore(store: EventStore, upcasters: Upcasters): EventStore {
  if (store instanceof EvolvingStore && store.upcasters === upcasters) return store;
  return new EvolvingStore(store, upcasters);
}
