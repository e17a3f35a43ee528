import type { TargetColumn } from '../recording-index/columns.ts';

/**
 * Counting over columns: rows grouped by bucket with a counting sort, then per bucket the distinct
 * rows (interactions) and distinct authors (unique authors), using a stamp array over author codes so
 * no set is ever built. Linear in rows plus values.
 */
export interface Bucket {
  code: number;
  interactions: number;
  uniqueAuthors: number;
  /** The bucket's distinct rows, ascending. */
  rows: Int32Array;
}

/** Author stamps shared by one analysis: a bucket's authors are those stamped with its generation. */
export class AuthorStamps {
  private readonly stamps: Int32Array;
  private generation = 0;
  constructor(authorCount: number) {
    this.stamps = new Int32Array(Math.max(1, authorCount));
  }

  /** Distinct authors of `rows`. */
  count(rows: Int32Array, authors: Int32Array): number {
    const g = ++this.generation;
    const s = this.stamps;
    let n = 0;
    for (let k = 0; k < rows.length; k++) {
      const a = authors[rows[k]!]!;
      if (s[a] !== g) {
        s[a] = g;
        n++;
      }
    }
    return n;
  }
}

/**
 * Reusable working memory for one analysis at a time, one buffer per nesting depth: a level's buckets
 * point into its buffer while deeper levels use theirs. Analyses run synchronously, so reuse is safe, and
 * a million-row analysis allocates no million-row arrays (which would wake the garbage collector).
 */
export class Scratch {
  private buffers: Int32Array[] = [];
  take(slot: number, size: number): Int32Array {
    let b = this.buffers[slot];
    if (!b || b.length < size) {
      b = new Int32Array(Math.max(size, (b?.length ?? 0) * 2, 1024));
      this.buffers[slot] = b;
    }
    return b.subarray(0, size);
  }
}

/** Groups `rows` by their values in `column` (a row with several values joins several buckets once each). */
export function bucketsByColumn(rows: Int32Array, column: TargetColumn, authors: Int32Array, stamps: AuthorStamps, scratch?: Scratch, slot = 0): Bucket[] {
  const offsets = column.offsets.data;
  const values = column.values.data;
  const counts = new Int32Array(column.keys.length + 1);
  if (column.single) return bucketsBySingle(rows, values, counts, authors, stamps, scratch, slot);
  for (let k = 0; k < rows.length; k++) {
    const r = rows[k]!;
    for (let j = offsets[r]!; j < offsets[r + 1]!; j++) counts[values[j]! + 1]!++;
  }
  // counts[c + 1] becomes the start of bucket c.
  for (let c = 1; c < counts.length; c++) counts[c]! += counts[c - 1]!;
  const starts = counts.slice();
  const total = counts[counts.length - 1]!;
  const grouped = scratch ? scratch.take(slot, total) : new Int32Array(total);
  for (let k = 0; k < rows.length; k++) {
    const r = rows[k]!;
    for (let j = offsets[r]!; j < offsets[r + 1]!; j++) grouped[starts[values[j]!]!++] = r;
  }
  return collect(grouped, counts, authors, stamps);
}

/** A column of one value per row: the row's code is `values[row]`. `counts` is zeroed, one longer than the codes. */
function bucketsBySingle(rows: Int32Array, values: Int32Array, counts: Int32Array, authors: Int32Array, stamps: AuthorStamps, scratch: Scratch | undefined, slot: number): Bucket[] {
  for (let k = 0; k < rows.length; k++) counts[values[rows[k]!]! + 1]!++;
  for (let c = 1; c < counts.length; c++) counts[c]! += counts[c - 1]!;
  const starts = counts.slice();
  const grouped = scratch ? scratch.take(slot, rows.length) : new Int32Array(rows.length);
  for (let k = 0; k < rows.length; k++) {
    const r = rows[k]!;
    grouped[starts[values[r]!]!++] = r;
  }
  return collect(grouped, counts, authors, stamps);
}

/** Groups `rows` by a code per row (`codes[k]` for `rows[k]`, from 0 to `nCodes - 1`). */
export function bucketsByCodes(rows: Int32Array, codes: Int32Array, nCodes: number, authors: Int32Array, stamps: AuthorStamps, scratch?: Scratch, slot = 0): Bucket[] {
  const counts = new Int32Array(nCodes + 1);
  for (let k = 0; k < rows.length; k++) counts[codes[k]! + 1]!++;
  for (let c = 1; c < counts.length; c++) counts[c]! += counts[c - 1]!;
  const starts = counts.slice();
  const grouped = scratch ? scratch.take(slot, rows.length) : new Int32Array(rows.length);
  for (let k = 0; k < rows.length; k++) grouped[starts[codes[k]!]!++] = rows[k]!;
  return collect(grouped, counts, authors, stamps);
}

function collect(grouped: Int32Array, bounds: Int32Array, authors: Int32Array, stamps: AuthorStamps): Bucket[] {
  const out: Bucket[] = [];
  for (let c = 0; c + 1 < bounds.length; c++) {
    const from = bounds[c]!;
    const to = bounds[c + 1]!;
    if (to === from) continue;
    // Rows were placed in ascending order, so a row listed twice (an array holding a value twice) is adjacent.
    let distinct = 0;
    let previous = -1;
    for (let k = from; k < to; k++) {
      const r = grouped[k]!;
      if (r !== previous) grouped[from + distinct++] = r;
      previous = r;
    }
    const rows = grouped.subarray(from, from + distinct);
    out.push({ code: c, interactions: distinct, uniqueAuthors: stamps.count(rows, authors), rows });
  }
  return out;
}
