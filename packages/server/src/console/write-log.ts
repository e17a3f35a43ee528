import type { AppendResult, Clock, EventStore, StreamAppend } from '@sdp/core/kernel';

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
 * Makes `store` tell `log` the range of every write it takes. An engine write's events all carry the
 * one time its unit of work read from the clock, close to now; an import's batches carry the times
 * they were first written, so they are left out (their writes are not known).
 */
export function recordWrites(store: EventStore, clock: Clock, log: WriteLog): void {
  const append = store.append.bind(store);
  const clear = store.clear.bind(store);
  // The store's own promise goes back to the engine, with the record as a reaction added before the
  // engine's: no async layer between every call and its write, and the write is recorded before the
  // engine hears of it, as when the record was awaited.
  store.append = (batch: StreamAppend[]): Promise<AppendResult> => {
    let appended: Promise<AppendResult>;
    try {
      appended = append(batch);
    } catch (error) {
      // A store that throws rather than rejects: the engine still sees a rejected write.
      return Promise.reject(error);
    }
    appended.then((result) => record(batch, result), ignore);
    return appended;
  };
  const record = (batch: StreamAppend[], result: AppendResult): void => {
    let count = 0;
    let time: number | undefined;
    let oneTime = true;
    for (const s of batch) {
      for (const e of s.events) {
        count++;
        if (time === undefined) time = e.time;
        else if (e.time !== time) oneTime = false;
      }
    }
    if (count > 0 && oneTime && time !== undefined) {
      const age = clock.now() - time;
      if (age >= 0 && age <= CALL_SPAN_MS) log.record(result.lastPosition - count + 1, result.lastPosition);
    }
  };
  store.clear = async (): Promise<void> => {
    await clear();
    log.forget();
  };
}

/** A failed append is the engine's to handle; its record is simply not made. */
function ignore(): void {}
