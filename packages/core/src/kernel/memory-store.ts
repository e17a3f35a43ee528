import { VersionConflict } from './version-conflict.ts';
import type { StoreCapabilities } from './store-capabilities.ts';
import type { AppendResult, StoredEvent, StreamAppend } from './events.ts';
import { ANY_VERSION } from './events.ts';
import type { EventStore, Snapshot } from './event-store.ts';
import { CommitSignal, type CommitListener, type StopWatching } from './commit-signal.ts';

export interface MemoryStoreOptions {
  /**
   * Events this says yes to may be forgotten once a snapshot of their stream covers them: a long-running
   * server keeps memory bounded (every call charges, so the credit streams grow by one event a call).
   * Only events that no reader of the whole log and no reader of the stream's history needs belong here.
   */
  compactable?: (event: StoredEvent) => boolean;
  /**
   * Events this says no to go to their stream but never into the log `readAll` reads (positions still
   * count them): for a store whose log readers need only some events, such as a simulation's, where the
   * recording index reads the log and `onStored` tells the ledger of everything.
   */
  logged?: (event: StoredEvent) => boolean;
  /** Told of every event as it is stored, in position order, inside the append (before it returns). */
  onStored?: (event: StoredEvent) => void;
  /**
   * The form an event is held in (its stream, and the log if it is logged) while `onStored` is told of
   * it whole: for a store whose readers of a large event's data all heard it through `onStored`, such as
   * a simulation's recording index, so that only what the stream's decider folds stays. It must keep the
   * event's id, type, stream, version and position.
   */
  heldAs?: (event: StoredEvent) => StoredEvent;
}

interface StreamLog {
  /** The stream's version: its events' count, including forgotten ones. */
  version: number;
  /** The events still held, in version order. */
  events: StoredEvent[];
  /** How many of the first held events an earlier forgetting already kept: the next one starts after them. */
  judged: number;
  /** The id of the stream's last event (kept when forgetting takes the event itself). */
  lastId: string | undefined;
}

/** The in-memory store: for tests, simulations and embedders who keep nothing. */
/**
 * The smallest batch the log drops. Low on purpose: a charge still in the log when the young generation
 * is collected is copied, then promoted, and garbage collection became the largest cost of a charged call
 * after the socket (under the http benchmark's load, 1,024 here: 1.7-1.9 µs of ~22 µs a request; 128:
 * 0.9-1.1 µs). The half-of-the-log rule keeps the drops amortised whatever this is.
 */
const DROP_AT_LEAST = 128;

export class MemoryEventStore implements EventStore {
  /**
   * Nothing but this process writes it; two engines may still share it (tests, embedders), and each
   * pipelines safely since the last event id a write expects is checked. Reads hand out the stored events.
   */
  readonly capabilities: StoreCapabilities = { kind: 'memory', reach: 'process', checksLastEventId: true, freshReads: false };
  /** Held events in position order (forgotten ones are taken out in batches). */
  private log: StoredEvent[] = [];
  /** The held events of each type, in position order: a projection reads its types without the rest. */
  private byType = new Map<string, StoredEvent[]>();
  private position = 0;
  /**
   * The positions of forgotten events still in the log, until the log drops them in a batch (then this
   * empties): numbers hash at once, and a weak set of the events cost the collector an ephemeron each.
   */
  private forgotten = new Set<number>();
  private forgottenInLog = 0;
  private streams = new Map<string, StreamLog>();
  private snapshots = new Map<string, Snapshot>();
  private readonly compactable: ((event: StoredEvent) => boolean) | undefined;
  private readonly logged: ((event: StoredEvent) => boolean) | undefined;
  private readonly onStored: ((event: StoredEvent) => void) | undefined;
  private readonly heldAs: ((event: StoredEvent) => StoredEvent) | undefined;
  private readonly commits = new CommitSignal();

  constructor(options: MemoryStoreOptions = {}) {
    this.compactable = options.compactable;
    this.logged = options.logged;
    this.onStored = options.onStored;
    this.heldAs = options.heldAs;
  }

  append(batch: StreamAppend[]): Promise<AppendResult> {
    try {
      return Promise.resolve(this.appendNow(batch));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** Checking and writing within one call keeps the write atomic. */
  appendNow(batch: StreamAppend[]): AppendResult {
    // A call writes a handful of streams: comparing pairs costs less than building a set.
    const seen = batch.length > 8 ? new Set<string>() : undefined;
    // Each stream's log, found once: the check and the write both use it.
    const found: (StreamLog | undefined)[] = new Array(batch.length);
    for (let i = 0; i < batch.length; i++) {
      const { stream, expectedVersion, expectedLastId } = batch[i]!;
      let twice = false;
      if (seen) twice = seen.has(stream) || !seen.add(stream);
      else for (let j = 0; j < i; j++) if (batch[j]!.stream === stream) twice = true;
      if (twice) throw new Error(`stream ${stream} appears twice in one append`);
      const list = this.streams.get(stream);
      const actual = list === undefined ? 0 : list.version;
      if (expectedVersion !== ANY_VERSION && expectedVersion !== actual) {
        throw new VersionConflict(stream, expectedVersion, actual);
      }
      // Right version, another writer's event at it: what the writer decided on never became durable.
      if (expectedLastId !== undefined && actual > 0 && list!.lastId !== expectedLastId) {
        throw new VersionConflict(stream, expectedVersion, actual);
      }
      found[i] = list;
    }
    const versions: number[] = new Array(batch.length);
    for (let i = 0; i < batch.length; i++) {
      const { stream, events } = batch[i]!;
      let list = found[i];
      if (events.length === 0) {
        // A guard (a stream only read): nothing to write, and on a stream that holds nothing, no trace.
        versions[i] = list === undefined ? 0 : list.version;
        continue;
      }
      if (list === undefined) {
        list = { version: 0, events: [], judged: 0, lastId: undefined };
        this.streams.set(stream, list);
      }
      for (const e of events) {
        const stored: StoredEvent = {
          id: e.id,
          type: e.type,
          data: e.data,
          time: e.time,
          stream,
          version: ++list.version,
          position: ++this.position,
          schemaVersion: e.schemaVersion ?? 1,
        };
        const held = this.heldAs ? this.heldAs(stored) : stored;
        list.events.push(held);
        list.lastId = e.id;
        if (!this.logged || this.logged(stored)) {
          this.log.push(held);
          // What readTypes answers is what readAll answers, of those types.
          const ofType = this.byType.get(e.type);
          if (ofType) ofType.push(held);
          else this.byType.set(e.type, [held]);
        }
        this.onStored?.(stored);
      }
      versions[i] = list.version;
    }
    const result: AppendResult = { versions, lastPosition: this.position };
    this.commits.wrote(batch, result);
    return result;
  }

  watchCommits(listener: CommitListener): StopWatching {
    return this.commits.watch(listener);
  }

  async readStream(stream: string, afterVersion = 0): Promise<StoredEvent[]> {
    const list = this.streams.get(stream);
    if (!list || afterVersion >= list.version) return [];
    const events = list.events;
    // Without forgotten events, index = version - 1; otherwise search.
    if (events.length === list.version) return events.slice(Math.max(0, afterVersion));
    return events.slice(firstAfter(events, afterVersion, (e) => e.version));
  }

  async readAll(afterPosition = 0, limit = Number.MAX_SAFE_INTEGER): Promise<StoredEvent[]> {
    const log = this.log;
    const from = log.length === this.position ? Math.max(0, afterPosition) : firstAfter(log, afterPosition, (e) => e.position);
    if (this.forgottenInLog === 0) return log.slice(from, from + limit);
    const out: StoredEvent[] = [];
    for (let k = from; k < log.length && out.length < limit; k++) if (!this.forgotten.has(log[k]!.position)) out.push(log[k]!);
    return out;
  }

  async readTypes(types: readonly string[], afterPosition = 0, limit = Number.MAX_SAFE_INTEGER): Promise<StoredEvent[]> {
    if (types.length === 1) return this.ofType(types[0]!, afterPosition, limit);
    const out: StoredEvent[] = [];
    for (const type of new Set(types)) out.push(...this.ofType(type, afterPosition, limit));
    out.sort((a, b) => a.position - b.position);
    return out.length > limit ? out.slice(0, limit) : out;
  }

  /** The held events of one type after a position, at most `limit`. */
  private ofType(type: string, afterPosition: number, limit: number): StoredEvent[] {
    const list = this.byType.get(type);
    if (!list) return [];
    const from = firstAfter(list, afterPosition, (e) => e.position);
    if (this.forgottenInLog === 0) return list.slice(from, from + limit);
    const out: StoredEvent[] = [];
    for (let k = from; k < list.length && out.length < limit; k++) if (!this.forgotten.has(list[k]!.position)) out.push(list[k]!);
    return out;
  }

  async head(): Promise<number> {
    return this.position;
  }

  async readSnapshot(stream: string, kind: string): Promise<Snapshot | undefined> {
    return this.snapshots.get(`${kind}|${stream}`);
  }

  /** One snapshot per stream and kind; an older one never replaces a newer. */
  async writeSnapshot(snapshot: Snapshot): Promise<void> {
    const key = `${snapshot.kind}|${snapshot.stream}`;
    const held = this.snapshots.get(key);
    if (!held || held.version <= snapshot.version) {
      this.snapshots.set(key, snapshot);
      if (this.compactable) this.forget(snapshot.stream, snapshot.version);
    }
  }

  /**
   * Forgets the compactable events a snapshot now covers; the log drops them in batches, each taking at
   * least half of the log (so every event is walked a bounded number of times).
   */
  private forget(stream: string, upTo: number): void {
    const list = this.streams.get(stream);
    if (!list) return;
    // In place, from where the last forgetting stopped: a stream whose kept events pile up (the analysis
    // charges of a credit stream) is not walked again from its start at every snapshot.
    const events = list.events;
    let w = list.judged;
    let k = w;
    for (; k < events.length && events[k]!.version <= upTo; k++) {
      const e = events[k]!;
      if (this.compactable!(e)) {
        if (!this.logged || this.logged(e)) {
          this.forgotten.add(e.position);
          this.forgottenInLog++;
        }
      } else events[w++] = e;
    }
    list.judged = w;
    if (w === k) return;
    events.copyWithin(w, k);
    events.length -= k - w;
    if (this.forgottenInLog >= DROP_AT_LEAST && this.forgottenInLog * 2 > this.log.length) {
      this.log = this.log.filter((e) => !this.forgotten.has(e.position));
      for (const [type, list] of this.byType) this.byType.set(type, list.filter((e) => !this.forgotten.has(e.position)));
      this.forgottenInLog = 0;
      this.forgotten = new Set();
    }
  }

  /** Walks the log once (a caller drops at most once a minute), so the lists stay in position order. */
  async dropTypes(types: readonly string[], throughPosition: number, streamPrefix: string): Promise<number> {
    const dropped = new Set<number>();
    const streams = new Set<StreamLog>();
    for (const type of new Set(types)) {
      const list = this.byType.get(type);
      if (!list) continue;
      const kept = list.filter((e) => {
        if (e.position > throughPosition || !e.stream.startsWith(streamPrefix)) return true;
        const stream = this.streams.get(e.stream)!;
        if (stream.events[stream.events.length - 1] === e) return true;
        dropped.add(e.position);
        streams.add(stream);
        return false;
      });
      if (kept.length === list.length) continue;
      if (kept.length === 0) this.byType.delete(type);
      else this.byType.set(type, kept);
    }
    if (dropped.size === 0) return 0;
    this.log = this.log.filter((e) => !dropped.has(e.position));
    for (const list of streams) {
      // Events a forgetting already judged stay judged: they are before the index it resumes from.
      list.judged -= list.events.slice(0, list.judged).filter((e) => dropped.has(e.position)).length;
      list.events = list.events.filter((e) => !dropped.has(e.position));
    }
    return dropped.size;
  }

  async clear(): Promise<void> {
    this.log = [];
    this.byType = new Map();
    this.position = 0;
    this.forgotten = new Set();
    this.forgottenInLog = 0;
    this.streams = new Map();
    this.snapshots = new Map();
    this.commits.notify();
  }

  async close(): Promise<void> {}
}

/** The index of the first item whose key is above `after`, in a list sorted by that key. */
function firstAfter(items: StoredEvent[], after: number, key: (e: StoredEvent) => number): number {
  let lo = 0;
  let hi = items.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(items[mid]!) <= after) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
