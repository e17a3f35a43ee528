import type { RecordedSet } from '../recording-index/recording-index.ts';
import type { TargetColumn } from '../recording-index/columns.ts';

/**
 * A frequency distribution over one target kept for a run of rows `[lo, hi)` of a recorded set in time
 * order. Analyses of a sliding window (the default: the last 24 hours, asked again and again) move the
 * run forward: rows that entered are added, rows that left are taken out, so each row is counted about
 * twice over the life of the recording instead of once per analysis. Authors are counted per bucket
 * with a row count each, so taking a row out knows whether its author is still in the bucket.
 */
export class WindowCounts {
  private lo = 0;
  private hi = 0;
  private generation: number;
  /** Rows in the run holding each value code (a row holding a value twice counts once). */
  readonly interactions: number[] = [];
  /** Per value code: author code → rows of that author in the bucket. */
  readonly authorsByCode: Map<number, number>[] = [];
  /** Author code → rows of that author in the run. */
  readonly authors = new Map<number, number>();

  constructor(
    private readonly set: RecordedSet,
    readonly target: string,
  ) {
    this.generation = set.generation;
  }

  /** Rows in the run. */
  get rows(): number {
    return this.hi - this.lo;
  }

  /** Makes the run `[from, to)` of rows (in a set in time order); starts again when it cannot slide there. */
  moveTo(from: number, to: number): TargetColumn {
    const column = this.set.column(this.target);
    if (this.generation !== this.set.generation || from < this.lo || to < this.hi || from >= this.hi) this.reset(from);
    for (let r = this.hi; r < to; r++) this.row(column, r, +1);
    this.hi = Math.max(this.hi, to);
    for (let r = this.lo; r < from; r++) this.row(column, r, -1);
    this.lo = from;
    return column;
  }

  private reset(at: number): void {
    this.generation = this.set.generation;
    this.lo = this.hi = at;
    this.interactions.length = 0;
    this.authorsByCode.length = 0;
    this.authors.clear();
  }

  private row(column: TargetColumn, r: number, delta: 1 | -1): void {
    const author = this.set.authors.data[r]!;
    tally(this.authors, author, delta);
    const values = column.values.data;
    const first = column.offsets.data[r]!;
    const end = column.offsets.data[r + 1]!;
    for (let j = first; j < end; j++) {
      const code = values[j]!;
      let repeated = false;
      for (let i = first; i < j; i++) if (values[i] === code) repeated = true;
      if (repeated) continue;
      while (this.interactions.length <= code) {
        this.interactions.push(0);
        this.authorsByCode.push(new Map());
      }
      this.interactions[code]! += delta;
      tally(this.authorsByCode[code]!, author, delta);
    }
  }
}

function tally(m: Map<number, number>, key: number, delta: 1 | -1): void {
  const n = (m.get(key) ?? 0) + delta;
  if (n === 0) m.delete(key);
  else m.set(key, n);
}

const KEPT_PER_SET = 16;
const COUNTS = new WeakMap<RecordedSet, Map<string, WindowCounts>>();

/**
 * The counts kept for a set, a target and a window length: analyses asking the same question of a
 * window that slides forward find theirs where they left it. A few per set, the least recent dropped.
 */
export function windowCountsOf(set: RecordedSet, target: string, windowMs: number): WindowCounts {
  let bySet = COUNTS.get(set);
  if (!bySet) COUNTS.set(set, (bySet = new Map()));
  const key = `${windowMs}|${target}`;
  let counts = bySet.get(key);
  if (counts) bySet.delete(key);
  else {
    counts = new WindowCounts(set, target);
    if (bySet.size >= KEPT_PER_SET) bySet.delete(bySet.keys().next().value!);
  }
  bySet.set(key, counts);
  return counts;
}
