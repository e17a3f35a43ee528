import { VersionConflict } from './errors.ts';
import type { AppendResult, StoredEvent, StreamAppend } from './events.ts';
import { ANY_VERSION } from './events.ts';
import type { EventStore, Snapshot } from './event-store.ts';

/** The in-memory store: for tests, simulations and embedders who keep nothing. */
export class MemoryEventStore implements EventStore {
  private log: StoredEvent[] = [];
  private streams = new Map<string, StoredEvent[]>();
  private snapshots = new Map<string, Snapshot>();

  async append(batch: StreamAppend[]): Promise<AppendResult> {
    return this.appendNow(batch);
  }

  /** Synchronous core of `append`: checking and writing with no await between keeps the write atomic. */
  appendNow(batch: StreamAppend[]): AppendResult {
    // Most writes touch one stream: no set to build for those.
    const seen = batch.length > 1 ? new Set<string>() : undefined;
    for (const { stream, expectedVersion } of batch) {
      if (seen) {
        if (seen.has(stream)) throw new Error(`stream ${stream} appears twice in one append`);
        seen.add(stream);
      }
      const actual = this.streams.get(stream)?.length ?? 0;
      if (expectedVersion !== ANY_VERSION && expectedVersion !== actual) {
        throw new VersionConflict(stream, expectedVersion, actual);
      }
    }
    const versions: number[] = [];
    for (const { stream, events } of batch) {
      let list = this.streams.get(stream);
      if (!list) {
        list = [];
        this.streams.set(stream, list);
      }
      for (const e of events) {
        const stored: StoredEvent = {
          id: e.id,
          type: e.type,
          data: e.data,
          time: e.time,
          stream,
          version: list.length + 1,
          position: this.log.length + 1,
        };
        list.push(stored);
        this.log.push(stored);
      }
      versions.push(list.length);
    }
    return { versions, lastPosition: this.log.length };
  }

  async readStream(stream: string, afterVersion = 0): Promise<StoredEvent[]> {
    return this.readStreamNow(stream, afterVersion);
  }

  readStreamNow(stream: string, afterVersion = 0): StoredEvent[] {
    const list = this.streams.get(stream);
    if (!list || afterVersion >= list.length) return [];
    return list.slice(Math.max(0, afterVersion));
  }

  async readAll(afterPosition = 0, limit = Number.MAX_SAFE_INTEGER): Promise<StoredEvent[]> {
    return this.log.slice(afterPosition, afterPosition + limit);
  }

  async head(): Promise<number> {
    return this.log.length;
  }

  async readSnapshot(stream: string, kind: string): Promise<Snapshot | undefined> {
    return this.snapshots.get(`${kind}|${stream}`);
  }

  /** One snapshot per stream and kind; an older one never replaces a newer. */
  async writeSnapshot(snapshot: Snapshot): Promise<void> {
    const key = `${snapshot.kind}|${snapshot.stream}`;
    const held = this.snapshots.get(key);
    if (!held || held.version <= snapshot.version) this.snapshots.set(key, snapshot);
  }

  async clear(): Promise<void> {
    this.log = [];
    this.streams = new Map();
    this.snapshots = new Map();
  }

  async close(): Promise<void> {}
}
