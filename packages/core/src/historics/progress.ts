/**
 * How a Historics query moves on the clock, as a pure function of what its events recorded and `now`:
 * after start it waits `QUEUE_MS` in the queue, then runs for a duration that grows with the span of
 * data it covers; pausing freezes the work done, resuming continues it. No timer is involved, so a
 * manual clock moving forward makes a query run and finish.
 */
export const QUEUE_MS = 10_000;
/** One minute of processing per hour of data covered, and never less than a minute. */
export const MS_PER_HOUR_OF_DATA = 60_000;
export const MIN_RUN_MS = 60_000;

export type HistoricsPhase = 'init' | 'active' | 'paused' | 'stopped' | 'succeeded' | 'failed';
export type HistoricsStatus = 'init' | 'queued' | 'running' | 'paused' | 'stopped' | 'succeeded' | 'failed';

/** What the clock needs of a query. */
export interface Timeline {
  phase: HistoricsPhase;
  /** Work done (ms) before `activeSince`. */
  workMs: number;
  /** When the query last became active (start or resume); `null` unless active. */
  activeSince: number | null;
  /** Processing time after the queue wait. */
  runMs: number;
}

/** The processing time of a query over `[start, end)` epoch seconds. */
export function runMsFor(startSec: number, endSec: number): number {
  return Math.max(MIN_RUN_MS, Math.ceil(((endSec - startSec) / 3600) * MS_PER_HOUR_OF_DATA));
}

export function timelineWork(t: Timeline, now: number): number {
  return t.workMs + (t.phase === 'active' && t.activeSince !== null ? Math.max(0, now - t.activeSince) : 0);
}

/** The instant an active query finishes (it has not been paused since). */
export function timelineCompletion(t: Timeline): number | null {
  if (t.phase !== 'active' || t.activeSince === null) return null;
  return t.activeSince + (QUEUE_MS + t.runMs - t.workMs);
}

export function timelineStatus(t: Timeline, now: number): HistoricsStatus {
  if (t.phase !== 'active') return t.phase;
  const work = timelineWork(t, now);
  if (work < QUEUE_MS) return 'queued';
  return work < QUEUE_MS + t.runMs ? 'running' : 'succeeded';
}

/** Percent done, 0 to 100: the share of the run behind it (a failed query reports 100, as recorded). */
export function timelineProgress(t: Timeline, now: number): number {
  if (t.phase === 'succeeded' || t.phase === 'failed') return 100;
  if (t.phase === 'init') return 0;
  const run = Math.min(t.runMs, Math.max(0, timelineWork(t, now) - QUEUE_MS));
  return Math.floor((100 * run) / t.runMs);
}

/**
 * The next instant the percent done moves (and so what a query has released so far), or `null` when it
 * will not move on its own (not active, or done). Push delivery of a query's results looks again then,
 * rather than every second of its run.
 */
export function timelineNextProgress(t: Timeline, now: number): number | null {
  if (t.phase !== 'active' || t.activeSince === null) return null;
  const work = timelineWork(t, now);
  const run = Math.max(0, work - QUEUE_MS);
  if (run >= t.runMs) return null;
  const nextRun = Math.ceil(((Math.floor((100 * run) / t.runMs) + 1) * t.runMs) / 100);
  return now + (QUEUE_MS + nextRun - work);
}
