/**
 * Column storage for the index: growable typed arrays, and per-target dictionary-encoded columns
 * (offsets + value codes, so a row may hold several values, as array targets do). Analysis counts
 * codes in typed arrays instead of walking JSON.
 */
export class GrowableFloat64 {
  data = new Float64Array(256);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Float64Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

export class GrowableInt32 {
  data = new Int32Array(256);
  length = 0;
  push(v: number): void {
    if (this.length === this.data.length) {
      const next = new Int32Array(this.data.length * 2);
      next.set(this.data);
      this.data = next;
    }
    this.data[this.length++] = v;
  }
}

/** One target's values over a recording's rows: row r holds `values[offsets[r] .. offsets[r+1])`. */
export class TargetColumn {
  /** Code → the value's key as analysis reports it. */
  readonly keys: string[] = [];
  private readonly codes = new Map<string, number>();
  readonly offsets = new GrowableInt32();
  readonly values = new GrowableInt32();
  /** Rows covered so far (the column catches up with its recording lazily). */
  covered = 0;
  /** Every row holds exactly one value, so row r's code is `values[r]` (the fast path of counting). */
  single = true;

  constructor() {
    this.offsets.push(0);
  }

  /** Adds the next row's values (a scalar, an array of scalars, or nothing). */
  addRow(value: unknown): void {
    const before = this.values.length;
    if (Array.isArray(value)) {
      for (const v of value) this.addValue(v);
    } else this.addValue(value);
    if (this.values.length - before !== 1) this.single = false;
    this.offsets.push(this.values.length);
    this.covered++;
  }

  private addValue(v: unknown): void {
    if (v === undefined || v === null || typeof v === 'object') return;
    const key = String(v);
    let code = this.codes.get(key);
    if (code === undefined) {
      code = this.keys.length;
      this.keys.push(key);
      this.codes.set(key, code);
    }
    this.values.push(code);
  }
}

const HOUR_MS = 3_600_000;

/**
 * Instants kept by UTC hour, so a count over a span costs the hours held plus two binary searches
 * instead of a pass over every instant: usage buckets (hours, limiting days, UTC months) are unions of
 * whole hours, and only the two hours a span's ends cut into are searched. Instants may arrive out of
 * order (interactions carry their own time): an hour that received one sorts itself on its next read.
 */
export class HourlyTimes {
  private readonly hours = new Map<number, { times: GrowableFloat64; sorted: boolean }>();

  add(at: number): void {
    const hour = Math.floor(at / HOUR_MS) * HOUR_MS;
    let h = this.hours.get(hour);
    if (!h) this.hours.set(hour, (h = { times: new GrowableFloat64(), sorted: true }));
    else if (at < h.times.data[h.times.length - 1]!) h.sorted = false;
    h.times.push(at);
  }

  clear(): void {
    this.hours.clear();
  }

  /** Instants with `from <= t < to`. */
  count(from: number, to: number): number {
    let n = 0;
    this.eachHour(from, to, (_, count) => (n += count));
    return n;
  }

  /** Each hour holding instants in `[from, to)`, with how many (in no particular order). */
  eachHour(from: number, to: number, visit: (hourStart: number, count: number) => void): void {
    for (const [hour, h] of this.hours) {
      if (hour + HOUR_MS <= from || hour >= to) continue;
      const n = hour >= from && hour + HOUR_MS <= to ? h.times.length : this.within(h, from, to);
      if (n > 0) visit(hour, n);
    }
  }

  private within(h: { times: GrowableFloat64; sorted: boolean }, from: number, to: number): number {
    const times = h.times.data.subarray(0, h.times.length);
    if (!h.sorted) {
      times.sort();
      h.sorted = true;
    }
    return firstAtOrAfter(times, to) - firstAtOrAfter(times, from);
  }
}

/** In ascending `times`: the index of the first at or after `at` (the length when none is). */
export function firstAtOrAfter(times: Float64Array, at: number, length = times.length): number {
  let lo = 0;
  let hi = length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (times[mid]! < at) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
