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
