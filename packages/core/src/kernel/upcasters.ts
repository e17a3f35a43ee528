import type { NewEvent, StoredEvent, StreamAppend } from './events.ts';

/**
 * Turns one event type's data from one schema version into the next. Pure: it returns new data and never
 * changes what it was given (an in-memory store hands every reader the same objects).
 */
export type Upcaster = (data: any) => unknown;

/**
 * An event was written by a newer build than this one: its type's schema version is above any this
 * build knows. Folding it as if it were current would decide on data misread, so the read fails.
 */
export class EventFromNewerSchema extends Error {
  constructor(readonly event: Pick<StoredEvent, 'type' | 'stream' | 'version' | 'schemaVersion'>, readonly known: number) {
    super(
      `event ${event.type} at ${event.stream} version ${event.version} has schema version ${event.schemaVersion}, ` +
        `newer than this build knows (${known}); upgrade the software`,
    );
    this.name = 'EventFromNewerSchema';
  }
}

/**
 * The schema history of event types. Each type starts at version 1; registering the upcaster from
 * version `n` makes `n + 1` its current version. Events are written in their type's current version and
 * read ones are brought up to it step by step, so deciders and read models only ever see current data.
 */
export class Upcasters {
  /** Per type, the step from version `i + 1` to `i + 2` at index `i`. */
  private readonly steps = new Map<string, Upcaster[]>();

  /** A registry holding `base`'s upcasters (an embedder adds its own types to the platform's). */
  constructor(base?: Upcasters) {
    if (base) for (const [type, list] of base.steps) this.steps.set(type, [...list]);
  }

  /**
   * Registers the step of `type` from version `from` to `from + 1`. Steps come in order (1, then 2...),
   * each once: a chain with a gap could not bring an old event up.
   */
  register(type: string, from: number, upcast: Upcaster): this {
    const list = this.steps.get(type) ?? [];
    const next = list.length + 1;
    if (from !== next) {
      throw new Error(
        from < next
          ? `${type} already has an upcaster from version ${from}`
          : `${type}: register the upcaster from version ${next} before the one from ${from} (each step from one version to the next)`,
      );
    }
    list.push(upcast);
    this.steps.set(type, list);
    return this;
  }

  /** The version new events of `type` are written in. */
  currentVersion(type: string): number {
    return (this.steps.get(type)?.length ?? 0) + 1;
  }

  /** Whether any type has moved past version 1. */
  get empty(): boolean {
    return this.steps.size === 0;
  }

  /**
   * Every type past version 1 with its current version (`PackageChanged@2,...`), sorted; `''` when none.
   * Snapshots are kept under it: a state folded before an upcaster existed is not loaded after.
   */
  signature(): string {
    return [...this.steps].map(([type, list]) => `${type}@${list.length + 1}`).sort().join(',');
  }

  /** The event brought to its type's current version: the same object when it already is. */
  upcast(event: StoredEvent): StoredEvent {
    const list = this.steps.get(event.type);
    const at = event.schemaVersion ?? 1;
    const current = (list?.length ?? 0) + 1;
    if (at === current) return event;
    if (!Number.isInteger(at) || at < 1) throw new Error(`event ${event.type} at ${event.stream} version ${event.version} has schema version ${String(at)}, which is not a whole number from 1`);
    if (at > current) throw new EventFromNewerSchema({ ...event, schemaVersion: at }, current);
    let data = event.data;
    for (let v = at; v < current; v++) data = list![v - 1]!(data);
    return { ...event, data, schemaVersion: current };
  }

  /**
   * `events` as the current schema reads them: the same array when none needed a change, so the common
   * read (every event current) costs one lookup per event and no copy.
   */
  upcastAll(events: StoredEvent[]): StoredEvent[] {
    if (this.steps.size === 0) {
      for (const e of events) if (e.schemaVersion !== undefined && e.schemaVersion !== 1) this.upcast(e);
      return events;
    }
    let out: StoredEvent[] | undefined;
    for (let i = 0; i < events.length; i++) {
      const e = events[i]!;
      const up = this.upcast(e);
      if (up !== e && !out) out = events.slice(0, i);
      out?.push(up);
    }
    return out ?? events;
  }

  /** The events of a write, each without a schema version given one: its type's current version. */
  stamp(batch: StreamAppend[]): StreamAppend[] {
    // A version given is one this build reads back: anything else would be stored, and then fail every
    // read of the log that reaches it. Older versions are fine (an import keeps each event's own).
    for (const entry of batch) {
      for (const e of entry.events) {
        const v = e.schemaVersion;
        if (v !== undefined && !(Number.isInteger(v) && v >= 1 && v <= this.currentVersion(e.type))) {
          throw new RangeError(`event ${e.type} for ${entry.stream} names schema version ${String(v)}; this build reads 1 to ${this.currentVersion(e.type)} for that type, so nothing was written`);
        }
      }
    }
    if (this.steps.size === 0) return batch;
    // Most writes hold only types at version 1 (a charge): those pass without a copy.
    let out: StreamAppend[] | undefined;
    for (let i = 0; i < batch.length; i++) {
      const entry = batch[i]!;
      if (!entry.events.some((e) => e.schemaVersion === undefined && this.steps.has(e.type))) {
        out?.push(entry);
        continue;
      }
      out ??= batch.slice(0, i);
      const events = entry.events.map((e): NewEvent => (e.schemaVersion === undefined && this.steps.has(e.type) ? { ...e, schemaVersion: this.currentVersion(e.type) } : e));
      out.push({ ...entry, events });
    }
    return out ?? batch;
  }
}
