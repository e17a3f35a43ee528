// The limiting day and the daily limit are the core's: the simulator only lists the days its run covers.
import { dailyAccountLimit, limitingDayOf } from '@sdp/core';
import type { AccountPackage, LimitingDayMode } from '@sdp/core';
import type { CapacityDay } from './usage-ledger.ts';

export interface LimitingDayRow {
  account: string;
  day: string;
  /** ISO instants bounding the day `[start, end)`. */
  start: string;
  end: string;
  used: number;
  refused: number;
  limit: number;
}

/** Every limiting day that overlaps `[from, to)`, with the account's recording capacity used and refused. */
export function limitingDays(from: number, to: number, mode: LimitingDayMode, pkg: AccountPackage, account: string, seen: Map<string, CapacityDay>): LimitingDayRow[] {
  const rows: LimitingDayRow[] = [];
  const limit = dailyAccountLimit(pkg.index_capacity_per_month);
  for (let day = limitingDayOf(from, mode); day.start < to; day = limitingDayOf(day.end, mode)) {
    const c = seen.get(day.key);
    rows.push({
      account,
      day: day.key,
      start: new Date(day.start).toISOString(),
      end: new Date(day.end).toISOString(),
      used: c?.used ?? 0,
      refused: c?.refused ?? 0,
      limit,
    });
  }
  return rows;
}

/** Day boundaries inside `[from, to]`, for charts. */
export function dayBoundaries(from: number, to: number, mode: LimitingDayMode): number[] {
  const out: number[] = [];
  for (let day = limitingDayOf(from, mode); day.end <= to; day = limitingDayOf(day.end, mode)) out.push(day.end);
  return out;
}
