import { DomainError } from '@sdp/core';
import { RELAY_STREAM_PREFIX } from '@sdp/core/internal';
import { type EventStore, type NewEvent, type StoredEvent, type StreamAppend } from '@sdp/core/kernel';

/** Events read from the store per round trip while exporting. */
const PAGE = 1000;
/** Events written per atomic append while importing (each stream at most once per append). */
const IMPORT_BATCH = 2000;

/**
 * The event log as NDJSON lines in global order: one stored event per line, with its `position`.
 * `after` is exclusive; `limit` caps the number of events (all of them when absent).
 */
export async function* exportEvents(store: EventStore, after = 0, limit = Number.POSITIVE_INFINITY): AsyncGenerator<string> {
  let at = after;
  let left = limit;
  while (left > 0) {
    const page = await store.readAll(at, Math.min(PAGE, left));
    if (page.length === 0) return;
    for (const e of page) yield eventLine(e);
    at = page[page.length - 1]!.position;
    left -= page.length;
  }
}

function eventLine(e: StoredEvent): string {
  return JSON.stringify({ position: e.position, stream: e.stream, version: e.version, id: e.id, time: e.time, type: e.type, schemaVersion: e.schemaVersion, data: e.data });
}

/**
 * Streams whose events are not portable state: the relay of matched interactions. No decision folds it,
 * the stream host drops its events from the log minutes after they are written (`EventStore.dropTypes`,
 * which leaves gaps in its versions), and the processes that follow it read the log live from their own
 * head, so a relay's past is never read again. Named by the prefix the core's relay writes under.
 */
const TRANSIENT_PREFIXES: readonly string[] = [RELAY_STREAM_PREFIX];

/**
 * True for an event of the log that an import leaves out (docs/portable-state.md): a relay's. By stream,
 * not type: builds before the relay wrote the same event type into the account's `streams:` aggregate,
 * where it still folds as licences and so is state.
 */
export function isTransientStream(stream: string): boolean {
  return TRANSIENT_PREFIXES.some((prefix) => stream.startsWith(prefix));
}

/** Bad NDJSON for an import: answered 400, nothing written. */
export class ImportError extends DomainError {
  constructor(message: string) {
    super(400, message);
  }
}

/**
 * Reads an export back: every line must be a stored event, positions rising, each stream's versions
 * counting 1, 2, 3... in order. A transient stream's versions need only rise: its gaps are the events the
 * log dropped (`isTransientStream`). All lines are checked before anything is written.
 */
export function parseEventLines(text: string): StoredEvent[] {
  const events: StoredEvent[] = [];
  const versions = new Map<string, number>();
  let lastPosition = 0;
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!.trim();
    if (line === '') continue;
    const where = `line ${i + 1}`;
    let e: Record<string, unknown>;
    try {
      e = JSON.parse(line) as Record<string, unknown>;
    } catch {
      throw new ImportError(`${where}: not JSON`);
    }
    if (typeof e !== 'object' || e === null || Array.isArray(e)) throw new ImportError(`${where}: not an event object`);
    const { position, stream, version, id, time, type, data, schemaVersion = 1 } = e;
    if (typeof stream !== 'string' || stream === '') throw new ImportError(`${where}: "stream" must be a non-empty string`);
    if (typeof type !== 'string' || type === '') throw new ImportError(`${where}: "type" must be a non-empty string`);
    if (typeof id !== 'string' || id === '') throw new ImportError(`${where}: "id" must be a non-empty string`);
    if (!Number.isSafeInteger(time)) throw new ImportError(`${where}: "time" must be Unix milliseconds`);
    if (!Number.isSafeInteger(position) || (position as number) <= lastPosition) throw new ImportError(`${where}: "position" must be a whole number above the previous line's (${lastPosition})`);
    const expected = (versions.get(stream) ?? 0) + 1;
    const transient = isTransientStream(stream);
    if (transient ? !Number.isSafeInteger(version) || (version as number) < expected : version !== expected)
      throw new ImportError(`${where}: stream ${stream} is at version ${expected - 1}, so "version" must be ${transient ? 'above it' : expected} (got ${JSON.stringify(version)})`);
    if (data === undefined) throw new ImportError(`${where}: "data" is missing`);
    // Absent in exports made before events had schema versions, when every event was at version 1.
    if (!Number.isSafeInteger(schemaVersion) || (schemaVersion as number) < 1) throw new ImportError(`${where}: "schemaVersion" must be a whole number from 1`);
    versions.set(stream, version as number);
    lastPosition = position as number;
    events.push({ position: position as number, stream, version: version as number, id, time: time as number, type, data, schemaVersion: schemaVersion as number });
  }
  return events;
}

/**
 * Appends exported events to an empty store, in their global order, with their ids and times, leaving out
 * the transient streams' (`isTransientStream`). The streams' versions are checked on every append, so a
 * concurrent writer makes the import fail rather than interleave. Answers the number of events written.
 */
export async function importEvents(store: EventStore, events: StoredEvent[]): Promise<number> {
  if ((await store.head()) !== 0) throw new DomainError(409, 'The store is not empty: import needs an empty store (POST /_admin/reset first)');
  let batch: StreamAppend[] = [];
  let inBatch = new Map<string, StreamAppend>();
  let last: StreamAppend | undefined;
  let size = 0;
  const flush = async () => {
    if (batch.length > 0) await store.append(batch);
    batch = [];
    inBatch = new Map();
    last = undefined;
    size = 0;
  };
  let written = 0;
  for (const e of events) {
    if (isTransientStream(e.stream)) continue;
    // A stream may appear once per append; if it comes back after another stream, the batch ends so
    // that the global order stays the exported one.
    if ((last?.stream !== e.stream && inBatch.has(e.stream)) || size >= IMPORT_BATCH) await flush();
    let target = last?.stream === e.stream ? last : undefined;
    if (!target) {
      target = { stream: e.stream, expectedVersion: e.version - 1, events: [] };
      batch.push(target);
      inBatch.set(e.stream, target);
      last = target;
    }
    // The version it was written in, so the store's schema brings it up on every read as it did there.
    const event: NewEvent = { id: e.id, time: e.time, type: e.type, data: e.data, schemaVersion: e.schemaVersion };
    target.events.push(event);
    size++;
    written++;
  }
  await flush();
  return written;
}
