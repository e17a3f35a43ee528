import { existsSync, readdirSync, readFileSync } from 'node:fs';
import type { EventStore, NewEvent, StoredEvent, StreamAppend } from '@sdp/core/kernel';

/** What one aggregate folded to when its golden log was written. */
export interface GoldenState {
  kind: string;
  version: number;
  state: unknown;
}

/**
 * An event log a released version wrote (a scripted session that makes every event type), with the
 * state each of its streams folded to then. Every later version must fold the log to the same states:
 * whatever the events' schemas have become since, their upcasters bring the old ones up.
 */
export interface GoldenLog {
  /** The version that wrote it (the fixture's folder). */
  name: string;
  events: StoredEvent[];
  /** By stream. */
  states: Record<string, GoldenState>;
  /**
   * By stream: the state a later decider kind folds the same log to (`restated.json`), for an aggregate
   * whose state changed shape on purpose (its kind renamed, say `tasks.v1` to `tasks.v2`). Written once when
   * the kind changes, reviewed, and from then on held like `states`.
   */
  restated: Record<string, GoldenState[]>;
}

/** The state a golden log must fold `stream` to under decider `kind` (undefined: none is kept for that kind). */
export function expectedState(golden: GoldenLog, stream: string, kind: string): GoldenState | undefined {
  const first = golden.states[stream];
  if (first?.kind === kind) return first;
  return golden.restated[stream]?.find((s) => s.kind === kind);
}

/** Where the golden logs are kept: `fixtures/golden/<version>/events.ndjson` and `states.json` (beside `src` and `dist`). */
export const GOLDEN_DIR = new URL('../fixtures/golden/', import.meta.url);

/** One event per line, as `sdp export` writes them. */
export const eventLine = (e: StoredEvent): string =>
  JSON.stringify({ position: e.position, stream: e.stream, version: e.version, id: e.id, time: e.time, type: e.type, schemaVersion: e.schemaVersion, data: e.data });

/** Every golden log kept, oldest version first. */
export function goldenLogs(): GoldenLog[] {
  const names = readdirSync(GOLDEN_DIR, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => d.name);
  names.sort((a, b) => a.localeCompare(b, 'en', { numeric: true }));
  return names.map((name) => {
    const dir = new URL(`${name}/`, GOLDEN_DIR);
    const events = readFileSync(new URL('events.ndjson', dir), 'utf8')
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => {
        const e = JSON.parse(line) as StoredEvent;
        return { ...e, schemaVersion: e.schemaVersion ?? 1 };
      });
    const states = JSON.parse(readFileSync(new URL('states.json', dir), 'utf8')) as Record<string, GoldenState>;
    const restatedFile = new URL('restated.json', dir);
    const restated = existsSync(restatedFile) ? (JSON.parse(readFileSync(restatedFile, 'utf8')) as Record<string, GoldenState[]>) : {};
    return { name, events, states, restated };
  });
}

/**
 * Writes a golden log into an empty store as it was: same streams, versions, ids, times and schema
 * versions, in the same global order (so the same positions).
 */
export async function appendGoldenLog(store: EventStore, events: StoredEvent[]): Promise<void> {
  let batch: StreamAppend[] = [];
  for (const e of events) {
    let entry = batch[batch.length - 1];
    if (entry?.stream !== e.stream) {
      // A stream may appear once per append: a stream coming back ends the batch, keeping the order.
      if (batch.some((b) => b.stream === e.stream)) {
        await store.append(batch);
        batch = [];
      }
      entry = { stream: e.stream, expectedVersion: e.version - 1, events: [] };
      batch.push(entry);
    }
    const event: NewEvent = { id: e.id, type: e.type, data: e.data, time: e.time, schemaVersion: e.schemaVersion };
    entry.events.push(event);
  }
  if (batch.length > 0) await store.append(batch);
}
