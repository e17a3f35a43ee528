import { foldMany, type Decider, type DomainEvent } from './decider.ts';
import type { EventStore } from './event-store.ts';
import type { StoredEvent } from './events.ts';
import { evolvingStore } from './evolving-store.ts';
import type { Upcasters } from './upcasters.ts';

/** A decider and the streams it folds: every stream whose name starts with `prefix` (`credits:`). */
export interface ReplayTarget {
  decider: Decider<any, any, any>;
  prefix: string;
}

export interface SnapshotMismatch {
  stream: string;
  kind: string;
  version: number;
  /** `differs`: the log folds to another state at that version; `ahead-of-log`: the stream never reached it. */
  reason: 'differs' | 'ahead-of-log';
  snapshot: unknown;
  rebuilt: unknown;
}

export interface RebuiltAggregate {
  stream: string;
  kind: string;
  version: number;
  state: unknown;
}

export interface ReplayReport {
  /** Events read from the log, and how many of them no target claimed. */
  events: number;
  unclaimed: number;
  /** Aggregates rebuilt (one per target and stream), keyed `kind|stream`. */
  aggregates: Map<string, RebuiltAggregate>;
  snapshotsChecked: number;
  mismatches: SnapshotMismatch[];
  /** The log's last position read. */
  head: number;
}

/** A stream's run is folded once it holds this many events, and every run once this many wait in all. */
const RUN = 256;
const MAX_WAITING = 200_000;

export interface ReplayOptions {
  /** Events read per page of `readAll`. */
  pageSize?: number;
  /** Told after each page: how far the replay has got. */
  onPage?: (position: number, events: number) => void;
  /** The event schema the targets fold: old events are brought up to it (see `Upcasters`). */
  upcasters?: Upcasters;
}

interface Folding {
  agg: RebuiltAggregate;
  target: ReplayTarget;
  snapshot: { version: number; state: unknown } | undefined;
}

/**
 * Rebuilds every aggregate from the log alone (in global order, page by page) and compares each stored
 * snapshot with the state the log folds to at the snapshot's version. A snapshot is a cache: any
 * mismatch means loads from it have been wrong, so the report names each one.
 */
export async function replay(written: EventStore, targets: ReplayTarget[], options: ReplayOptions = {}): Promise<ReplayReport> {
  const store = options.upcasters ? evolvingStore(written, options.upcasters) : written;
  const pageSize = options.pageSize ?? 10_000;
  const aggregates = new Map<string, RebuiltAggregate>();
  const folding = new Map<string, Folding[]>();
  const mismatches: SnapshotMismatch[] = [];
  let snapshotsChecked = 0;
  let events = 0;
  let unclaimed = 0;
  let position = 0;

  const check = (f: Folding): void => {
    const snap = f.snapshot;
    if (!snap || f.agg.version !== snap.version) return;
    snapshotsChecked++;
    if (!sameState(snap.state, f.agg.state)) {
      mismatches.push({ stream: f.agg.stream, kind: f.agg.kind, version: snap.version, reason: 'differs', snapshot: snap.state, rebuilt: f.agg.state });
    }
    f.snapshot = undefined;
  };

  const start = async (stream: string): Promise<Folding[]> => {
    const list: Folding[] = [];
    for (const target of targets) {
      if (!stream.startsWith(target.prefix)) continue;
      const kind = target.decider.name as string;
      const agg: RebuiltAggregate = { stream, kind, version: 0, state: target.decider.initialState() };
      aggregates.set(`${kind}|${stream}`, agg);
      const snap = store.readSnapshot ? await store.readSnapshot(stream, kind) : undefined;
      list.push({ agg, target, snapshot: snap && snap.version > 0 ? { version: snap.version, state: snap.state } : undefined });
    }
    folding.set(stream, list);
    return list;
  };

  const advance = (f: Folding, run: StoredEvent[]): void => {
    if (run.length === 0) return;
    f.agg.state = foldMany(f.target.decider, run as DomainEvent[], f.agg.state, store.capabilities.freshReads);
    f.agg.version = run[run.length - 1]!.version;
  };

  // Each stream's events wait in a run and are folded together (one immer draft per run, in version
  // order): a run of a hundred events costs a fraction of a hundred produces.
  const runs = new Map<string, StoredEvent[]>();
  let waiting = 0;
  const foldRun = (stream: string, run: StoredEvent[]): void => {
    for (const f of folding.get(stream)!) {
      const at = f.snapshot ? run.findIndex((e) => e.version === f.snapshot!.version) : -1;
      if (at < 0) {
        advance(f, run);
        continue;
      }
      advance(f, run.slice(0, at + 1));
      check(f);
      advance(f, run.slice(at + 1));
    }
    runs.delete(stream);
    waiting -= run.length;
  };

  for (;;) {
    const page = await store.readAll(position, pageSize);
    if (page.length === 0) break;
    for (const e of page) {
      const list = folding.get(e.stream) ?? (await start(e.stream));
      if (list.length === 0) {
        unclaimed++;
        continue;
      }
      let run = runs.get(e.stream);
      if (!run) runs.set(e.stream, (run = []));
      run.push(e);
      waiting++;
      if (run.length >= RUN) foldRun(e.stream, run);
    }
    if (waiting >= MAX_WAITING) for (const [stream, run] of runs) foldRun(stream, run);
    events += page.length;
    position = page[page.length - 1]!.position;
    options.onPage?.(position, events);
  }
  for (const [stream, run] of runs) foldRun(stream, run);
  for (const list of folding.values()) {
    for (const f of list) {
      if (f.snapshot) {
        mismatches.push({ stream: f.agg.stream, kind: f.agg.kind, version: f.snapshot.version, reason: 'ahead-of-log', snapshot: f.snapshot.state, rebuilt: f.agg.state });
      }
    }
  }
  return { events, unclaimed, aggregates, snapshotsChecked, mismatches, head: position };
}

/**
 * Structural equality of folded states as stores keep them (plain data, arrays, Maps, Sets, Dates); a
 * key holding `undefined` counts as absent, since not every store keeps it.
 */
export function sameState(a: unknown, b: unknown): boolean {
  if (Object.is(a, b)) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  if (Array.isArray(a)) {
    const bb = b as unknown[];
    return a.length === bb.length && a.every((x, i) => sameState(x, bb[i]));
  }
  if (a instanceof Date || b instanceof Date) return a instanceof Date && b instanceof Date && a.getTime() === b.getTime();
  if (a instanceof Map || b instanceof Map) {
    if (!(a instanceof Map && b instanceof Map) || a.size !== b.size) return false;
    for (const [k, v] of a) if (!b.has(k) || !sameState(v, b.get(k))) return false;
    return true;
  }
  if (a instanceof Set || b instanceof Set) {
    if (!(a instanceof Set && b instanceof Set) || a.size !== b.size) return false;
    for (const v of a) if (!b.has(v)) return false;
    return true;
  }
  const ka = Object.keys(a).filter((k) => (a as Record<string, unknown>)[k] !== undefined);
  const kb = Object.keys(b).filter((k) => (b as Record<string, unknown>)[k] !== undefined);
  if (ka.length !== kb.length) return false;
  return ka.every((k) => Object.hasOwn(b, k) && sameState((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]));
}
