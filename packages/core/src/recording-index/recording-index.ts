import { Projection, ProjectionKey, type Projections } from '../kernel/projection.ts';
import type { EventStore } from '../kernel/event-store.ts';
import type { StoredEvent } from '../kernel/events.ts';
import { applyTags, readTarget, type Interaction } from '../filters/index.ts';
import type { InteractionsRecordedEvent } from './capacity.ts';
import { utf8Length } from '../calls/utf8.ts';
import { GrowableFloat64, GrowableInt32, HourlyTimes, TargetColumn, firstAtOrAfter } from './columns.ts';
import { authorOf } from './interaction-facts.ts';

/** Recorded interactions stay in the index 32 days, then are dropped from analysis (docs/contract.md#limiting-day-capacity-and-retention). */
export const RETENTION_MS = 32 * 24 * 3_600_000;

/**
 * What one recording has kept, column by column: the time and author of every row, the interaction as
 * recorded (with the recording's tags), and target columns built on first use and extended as rows
 * arrive.
 */
export class RecordedSet {
  readonly times = new GrowableFloat64();
  readonly authors = new GrowableInt32();
  private readonly kept: Interaction[] = [];
  private readonly columns = new Map<string, TargetColumn>();
  private minTime = Infinity;
  private maxTime = -Infinity;
  /** 0, 1, 2, ...: every row, handed out when a window holds them all. */
  private readonly every = new GrowableInt32();
  /**
   * Whether rows are in time order (each at or after the one before), so a window is a contiguous run
   * of rows: what lets analysis keep counts and slide them instead of rescanning.
   */
  ordered = true;
  /** Bumped whenever row numbers change (retention), so anything holding row numbers starts again. */
  generation = 0;
  /** Every row's time by hour: usage counts a span without a pass over the rows. */
  readonly hours = new HourlyTimes();
  /**
   * Bytes of the rows before row r (`bytes.data[r]`), as pull and push measure an interaction: built on
   * first use and extended as rows arrive, so each row is serialised once however often it is counted.
   */
  private readonly bytes = new GrowableFloat64();
  /** Rows of a window in a set out of time order, kept and extended (see `select`), newest use last. */
  private readonly selections = new Map<string, FilteredRows>();

  /** `keeping`: whether its index keeps interactions (shared by the index's sets); by default it does. */
  constructor(private readonly keeping: Keeping = new Keeping()) {}

  /** The interactions as recorded, row by row. */
  get docs(): Interaction[] {
    this.keeping.read();
    return this.kept;
  }

  /** Keeps no interaction from here on (its index counts them): those kept go, with what was built on them. */
  dropInteractions(): void {
    this.kept.length = 0;
    this.columns.clear();
    this.bytes.length = 0;
    this.selections.clear();
  }

  get size(): number {
    return this.times.length;
  }

  add(at: number, author: number, doc: Interaction): void {
    if (at < this.maxTime) this.ordered = false;
    if (at < this.minTime) this.minTime = at;
    if (at > this.maxTime) this.maxTime = at;
    this.every.push(this.times.length);
    this.hours.add(at);
    this.times.push(at);
    this.authors.push(author);
    if (this.keeping.keeps) this.kept.push(doc);
  }

  /** The earliest time held (Infinity when empty). */
  get oldest(): number {
    return this.minTime;
  }

  /**
   * Drops rows older than `cutoff` (retention), keeping the others in order. Row numbers change, so
   * columns are rebuilt on their next use; callers never hold rows across a catch-up.
   */
  dropBefore(cutoff: number): void {
    const t = this.times.data;
    const a = this.authors.data;
    let w = 0;
    let min = Infinity;
    let max = -Infinity;
    let ordered = true;
    const kept = this.keeping.keeps ? this.kept : undefined;
    for (let r = 0; r < this.times.length; r++) {
      const at = t[r]!;
      if (at < cutoff) continue;
      if (at < max) ordered = false;
      t[w] = at;
      a[w] = a[r]!;
      if (kept) kept[w] = kept[r]!;
      if (at < min) min = at;
      if (at > max) max = at;
      w++;
    }
    if (kept) kept.length = w;
    this.times.length = w;
    this.authors.length = w;
    this.every.length = w;
    this.minTime = min;
    this.maxTime = max;
    this.ordered = ordered;
    this.generation++;
    this.columns.clear();
    this.hours.clear();
    for (let r = 0; r < w; r++) this.hours.add(t[r]!);
    this.bytes.length = 0;
    this.selections.clear();
  }

  /** Bytes of rows `[0, row)` in recorded order, each row as `JSON.stringify` writes it in UTF-8. */
  bytesBefore(row: number): number {
    const b = this.bytes;
    if (b.length === 0) b.push(0);
    for (let r = b.length - 1; r < row; r++) b.push(b.data[r]! + utf8Length(JSON.stringify(this.docs[r])));
    return b.data[row]!;
  }

  /**
   * The rows with `from <= time < to`, in recorded order, as a selection a read can index into and
   * measure without a pass over the set: a run of row numbers when the set is in time order (two binary
   * searches); otherwise a list kept per window and extended with the rows added since it was last read,
   * so a window read again and again (a subscription's feed) costs what arrived since.
   */
  select(from: number, to: number): RowSelection {
    const n = this.size;
    if (n === 0 || to <= from) return new RowRun(this, 0, 0);
    if (from <= this.minTime && to > this.maxTime) return new RowRun(this, 0, n);
    if (this.ordered) {
      const first = this.firstRowAtOrAfter(from);
      return new RowRun(this, first, this.firstRowAtOrAfter(to) - first);
    }
    // A window reaching past the newest row keeps every row from `from` on: one list serves it while
    // its end moves with the clock.
    const open = to > this.maxTime;
    const key = open ? `${from}:` : `${from}:${to}`;
    let list = this.selections.get(key);
    if (list) this.selections.delete(key);
    else {
      list = new FilteredRows(this, from, open ? Infinity : to);
      if (this.selections.size >= MAX_SELECTIONS) this.selections.delete(this.selections.keys().next().value!);
    }
    this.selections.set(key, list);
    return list.caughtUp();
  }

  /** In a set in time order: the first row at or after `at` (the size when none is). */
  firstRowAtOrAfter(at: number): number {
    return firstAtOrAfter(this.times.data, at, this.size);
  }

  /** The column of a target, caught up with every row. */
  column(target: string): TargetColumn {
    let col = this.columns.get(target);
    if (!col) {
      col = new TargetColumn();
      this.columns.set(target, col);
    }
    const docs = this.docs;
    for (let r = col.covered; r < docs.length; r++) col.addRow(readTarget(docs[r]!, target));
    return col;
  }

  /** Rows with `from <= time < to`, in recorded order. Read-only: it may be shared. */
  rowsBetween(from: number, to: number): Int32Array {
    const t = this.times.data;
    const n = this.size;
    if (from <= this.minTime && to > this.maxTime) return this.every.data.subarray(0, n);
    const out = new Int32Array(n);
    let k = 0;
    for (let r = 0; r < n; r++) {
      const at = t[r]!;
      if (at >= from && at < to) out[k++] = r;
    }
    return out.subarray(0, k);
  }
}

/**
 * Whether an index keeps the interactions of its rows, and whether anything read them: one object that
 * all of its sets share, so the index changes its mind in one place.
 */
export class Keeping {
  keeps = true;
  /** Anything read an interaction (kept or not). */
  wasRead = false;
  /** Something asked for an interaction while none were kept. */
  missed = false;

  read(): void {
    this.wasRead = true;
    if (!this.keeps) {
      this.missed = true;
      throw new InteractionsNotKept();
    }
  }
}

/** Windows kept per set out of time order (about one per subscription reading it). */
const MAX_SELECTIONS = 16;

/** Some rows of a set in recorded order: the k-th row's number, and the bytes of a run of them. */
export interface RowSelection {
  readonly length: number;
  row(k: number): number;
  /** Bytes of the selection's rows `[k0, k1)`. */
  bytesBetween(k0: number, k1: number): number;
}

class RowRun implements RowSelection {
  constructor(
    private readonly set: RecordedSet,
    private readonly first: number,
    readonly length: number,
  ) {}

  row(k: number): number {
    return this.first + k;
  }

  bytesBetween(k0: number, k1: number): number {
    return k1 <= k0 ? 0 : this.set.bytesBefore(this.first + k1) - this.set.bytesBefore(this.first + k0);
  }
}

class FilteredRows implements RowSelection {
  private readonly rows = new GrowableInt32();
  /** Bytes of the selection's rows before the k-th (`cumulative.data[k]`). */
  private readonly cumulative = new GrowableFloat64();
  private covered = 0;

  constructor(
    private readonly set: RecordedSet,
    private readonly from: number,
    private readonly to: number,
  ) {
    this.cumulative.push(0);
  }

  get length(): number {
    return this.rows.length;
  }

  caughtUp(): this {
    const t = this.set.times.data;
    const n = this.set.size;
    for (let r = this.covered; r < n; r++) {
      const at = t[r]!;
      if (at < this.from || at >= this.to) continue;
      this.rows.push(r);
    }
    this.covered = n;
    return this;
  }

  row(k: number): number {
    return this.rows.data[k]!;
  }

  bytesBetween(k0: number, k1: number): number {
    if (k1 <= k0) return 0;
    const c = this.cumulative;
    for (let k = c.length - 1; k < k1; k++) {
      const r = this.rows.data[k]!;
      c.push(c.data[k]! + this.set.bytesBefore(r + 1) - this.set.bytesBefore(r));
    }
    return c.data[k1]! - c.data[k0]!;
  }
}

/**
 * The recording index: a projection of the log, owned by the engine that reads it (`EngineOptions
 * .recordingIndex`; one per engine by default). Every `InteractionsRecorded` event (decided by the daily
 * capacity aggregate) adds its kept interactions to each recording that kept them; it asks the store for
 * nothing else. Reads catch it up first (`caughtUp`), so a restarted process rebuilds it from the log and
 * several processes on one store see each other's interactions.
 */
export interface RecordingIndexOptions {
  /**
   * `kept` (the default): every row keeps its interaction, as recorded. `counted`: rows keep their time,
   * author and hour (volume, usage, balance), not the interaction; a read of one (analysis, a sample,
   * push, historics) throws `InteractionsNotKept` and sets `interactionsAsked`. For a caller that can do
   * its work again with them kept, as the simulator runs a scenario again. `keepNoInteractions()` turns
   * a kept index into a counting one.
   */
  interactions?: 'kept' | 'counted';
}

/** A read of recorded interactions from an index that counts them and keeps none (`interactions: 'counted'`). */
export class InteractionsNotKept extends Error {
  constructor() {
    super('this recording index counts recorded interactions and keeps none of them (interactions: counted)');
    this.name = 'InteractionsNotKept';
  }
}

export class RecordingIndex extends Projection {
  readonly types = ['InteractionsRecorded'] as const;
  private readonly keeping = new Keeping();
  private sets = new Map<string, RecordedSet>();
  private authorCodes = new Map<string, number>();
  private nextAuthor = 0;
  /** Per account, the log position of the last interactions recorded for it: what wakes idle push delivery. */
  private fed = new Map<string, number>();

  constructor(store: EventStore, options: RecordingIndexOptions = {}) {
    super(store);
    if (options.interactions === 'counted') this.keeping.keeps = false;
  }

  /** Whether anything read an interaction this index did not keep (only once it counts them). */
  get interactionsAsked(): boolean {
    return this.keeping.missed;
  }

  /** Whether anything read a recorded interaction, kept or not. */
  get interactionsRead(): boolean {
    return this.keeping.wasRead;
  }

  /** From here on rows keep no interaction, and those kept go: the index counts them (`counted`). */
  keepNoInteractions(): void {
    if (!this.keeping.keeps) return;
    this.keeping.keeps = false;
    for (const set of this.sets.values()) set.dropInteractions();
  }

  /** The index caught up with everything written so far, and retention applied at `now` when given. */
  async caughtUp(now?: number): Promise<this> {
    await this.catchUp();
    if (now !== undefined) this.dropExpired(now - RETENTION_MS);
    return this;
  }

  recording(id: string): RecordedSet | undefined {
    return this.sets.get(id);
  }

  /**
   * Retention: sets holding rows more than a day past the cutoff drop everything older than it (at most
   * about once a day per set, so reads rarely pay for it).
   */
  dropExpired(cutoff: number): void {
    for (const set of this.sets.values()) if (set.oldest < cutoff - 24 * 3_600_000) set.dropBefore(cutoff);
  }

  /**
   * The accounts that had interactions recorded after log position `after` (as far as the index has read:
   * catch it up first). A push keeper asks instead of re-reading these events, the log's largest.
   */
  accountsFedAfter(after: number): string[] {
    const out: string[] = [];
    for (const [username, position] of this.fed) if (position > after) out.push(username);
    return out;
  }

  protected forget(): void {
    this.fed = new Map();
    this.sets = new Map();
    this.authorCodes = new Map();
    this.nextAuthor = 0;
  }

  protected apply(e: StoredEvent): void {
    if (!e.stream.startsWith('capacity:')) return;
    this.fed.set(e.stream.slice('capacity:'.length, e.stream.lastIndexOf(':')), e.position);
    const data = e.data as InteractionsRecordedEvent['data'];
    for (const item of data.items) {
      const author = this.authorCode(item.interaction);
      for (const m of item.matches) {
        let set = this.sets.get(m.recording);
        if (!set) this.sets.set(m.recording, (set = new RecordedSet(this.keeping)));
        set.add(item.at, author, !this.keeping.keeps || !(m.tags.length > 0 || m.categories?.length) ? item.interaction : applyTags(item.interaction, { matched: true, ...m }));
      }
    }
  }

  private authorCode(i: Interaction): number {
    const key = authorOf(i);
    // An interaction that names no author counts as its own author.
    if (key === undefined) return this.nextAuthor++;
    let code = this.authorCodes.get(key);
    if (code === undefined) {
      code = this.nextAuthor++;
      this.authorCodes.set(key, code);
    }
    return code;
  }

  /** Author codes run from 0 to this (exclusive): sizes the analysis scratch arrays. */
  get authorCount(): number {
    return this.nextAuthor;
  }
}

/** The recording index's key in an engine's projections. */
export const RECORDING_INDEX = new ProjectionKey<RecordingIndex>('recording-index');

/** The recording index of the engine a call runs in. */
export const recordingIndexOf = (ctx: { projections: Projections }): RecordingIndex => ctx.projections.get(RECORDING_INDEX);
