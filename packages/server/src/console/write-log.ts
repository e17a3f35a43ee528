import type { Clock, EventStore, StopWatching } from '@sdp/core/kernel';

/** How many recent writes are remembered (two numbers each). */
const KEPT = 100_000;
/** On the system clock a call's events carry the time its work began; its append follows within this. */
const CALL_SPAN_MS = 60_000;

/**
 * The position ranges of the writes this server made, so the console shows each atomic write as it was
 * rather than as the envelope suggests. Kept in memory only: writes from before a restart, from another
 * process on the same PostgreSQL, or imported, are read from the envelope instead (page/writes.js).
 */
export class WriteLog {
  private firsts: number[] = [];
  private lasts: number[] = [];

  record(first: number, last: number): void {
    // Positions start again after a reset: what was recorded past them is gone.
    while (this.lasts.length > 0 && this.lasts[this.lasts.length - 1]! >= first) {
      this.firsts.pop();
      this.lasts.pop();
    }
    this.firsts.push(first);
    this.lasts.push(last);
    if (this.firsts.length > KEPT * 1.25) {
      this.firsts = this.firsts.slice(-KEPT);
      this.lasts = this.lasts.slice(-KEPT);
    }
  }

  forget(): void {
    this.firsts = [];
    this.lasts = [];
  }

  /** Recorded writes that end after `after` and begin at or before `until`, as `[first, last]` pairs. */
  between(after: number, until = Number.POSITIVE_INFINITY): [number, number][] {
    // Writes are recorded in position order: find the first one ending after `after` by bisection.
    let lo = 0;
    let hi = this.lasts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.lasts[mid]! <= after) lo = mid + 1;
      else hi = mid;
    }
    const out: [number, number][] = [];
    for (let i = lo; i < this.firsts.length && this.firsts[i]! <= until; i++) out.push([this.firsts[i]!, this.lasts[i]!]);
    return out;
  }
}

/**
 * Tells `log` the range of every write this server makes, from the store's commit notices. An engine
 * write's events all carry the one time its unit of work read from the clock, close to now; an import's
 * batches carry the times they were first written, so they are left out (their writes are not known).
 */
export function recordWrites(store: EventStore, clock: Clock, log: WriteLog): StopWatching {
  return store.watchCommits(({ ownWrites }) => {
    const now = clock.now();
    for (const { first, last, time } of ownWrites) {
      if (time === undefined) continue;
      const age = now - time;
      if (age >= 0 && age <= CALL_SPAN_MS) log.record(first, last);
    }
  });
}
