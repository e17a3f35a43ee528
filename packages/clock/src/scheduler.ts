export interface Due {
  at: number;
  seq: number;
  run: (at: number) => void | Promise<void>;
}

/**
 * Timed work kept in time order (a binary heap on time, then on scheduling order), so that work due at
 * the same instant runs in the order it was scheduled.
 */
export class Scheduler {
  private heap: Due[] = [];
  private seq = 0;

  schedule(at: number, run: (at: number) => void | Promise<void>): void {
    this.heap.push({ at, seq: this.seq++, run });
    this.up(this.heap.length - 1);
  }

  get size(): number {
    return this.heap.length;
  }

  peek(): Due | undefined {
    return this.heap[0];
  }

  /** Removes and returns the earliest work due at or before `at`. */
  takeDue(at: number): Due | undefined {
    const top = this.heap[0];
    if (!top || top.at > at) return undefined;
    const last = this.heap.pop()!;
    if (this.heap.length > 0) {
      this.heap[0] = last;
      this.down(0);
    }
    return top;
  }

  clear(): void {
    this.heap = [];
  }

  private less(i: number, j: number): boolean {
    const a = this.heap[i]!;
    const b = this.heap[j]!;
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }

  private up(i: number): void {
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.less(i, p)) break;
      [this.heap[i], this.heap[p]] = [this.heap[p]!, this.heap[i]!];
      i = p;
    }
  }

  private down(i: number): void {
    for (;;) {
      const l = 2 * i + 1;
      const r = l + 1;
      let m = i;
      if (l < this.heap.length && this.less(l, m)) m = l;
      if (r < this.heap.length && this.less(r, m)) m = r;
      if (m === i) return;
      [this.heap[i], this.heap[m]] = [this.heap[m]!, this.heap[i]!];
      i = m;
    }
  }
}
