import { Projection, ProjectionKey, type Projections } from '../kernel/projection.ts';
import type { StoredEvent } from '../kernel/events.ts';
import { applyTags, readTarget, type Interaction } from '../filters/index.ts';
import type { InteractionsRecordedEvent } from './capacity.ts';
import { GrowableFloat64, GrowableInt32, TargetColumn } from './columns.ts';
import { authorOf } from './interaction-facts.ts';

/** Recorded interactions stay in the index 32 days, then are dropped from analysis (decisions §4). */
export const RETENTION_MS = 32 * 24 * 3_600_000;

/**
 * What one recording has kept, column by column: the time and author of every row, the interaction as
 * recorded (with the recording's tags), and target columns built on first use and extended as rows
 * arrive.
 */
export class RecordedSet {
  readonly times = new GrowableFloat64();
  readonly authors = new GrowableInt32();
  readonly docs: Interaction[] = [];
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

  get size(): number {
    return this.docs.length;
  }

  add(at: number, author: number, doc: Interaction): void {
    if (at < this.maxTime) this.ordered = false;
    if (at < this.minTime) this.minTime = at;
    if (at > this.maxTime) this.maxTime = at;
    this.every.push(this.docs.length);
    this.times.push(at);
    this.authors.push(author);
    this.docs.push(doc);
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
    for (let r = 0; r < this.docs.length; r++) {
      const at = t[r]!;
      if (at < cutoff) continue;
      if (at < max) ordered = false;
      t[w] = at;
      a[w] = a[r]!;
      this.docs[w] = this.docs[r]!;
      if (at < min) min = at;
      if (at > max) max = at;
      w++;
    }
    this.docs.length = w;
    this.times.length = w;
    this.authors.length = w;
    this.every.length = w;
    this.minTime = min;
    this.maxTime = max;
    this.ordered = ordered;
    this.generation++;
    this.columns.clear();
  }

  /** In a set in time order: the first row at or after `at` (the size when none is). */
  firstRowAtOrAfter(at: number): number {
    const t = this.times.data;
    let lo = 0;
    let hi = this.size;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (t[mid]! < at) lo = mid + 1;
      else hi = mid;
    }
    return lo;
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
 * The recording index: a projection of the log, owned by the engine that reads it (`EngineOptions
 * .recordingIndex`; one per engine by default). Every `InteractionsRecorded` event (decided by the daily
 * capacity aggregate) adds its kept interactions to each recording that kept them; it asks the store for
 * nothing else. Reads catch it up first (`caughtUp`), so a restarted process rebuilds it from the log and
 * several processes on one store see each other's interactions.
 */
export class RecordingIndex extends Projection {
  readonly types = ['InteractionsRecorded'] as const;
  private sets = new Map<string, RecordedSet>();
  private authorCodes = new Map<string, number>();
  private nextAuthor = 0;
  /** Per account, the log position of the last interactions recorded for it: what wakes idle push delivery. */
  private fed = new Map<string, number>();

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
        if (!set) this.sets.set(m.recording, (set = new RecordedSet()));
        set.add(item.at, author, m.tags.length > 0 || m.categories?.length ? applyTags(item.interaction, { matched: true, ...m }) : item.interaction);
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
