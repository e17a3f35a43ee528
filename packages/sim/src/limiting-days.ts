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

/** The zone charts and tables show times in: the limiting day's, with its offset from UTC at an instant. */
export interface TimeZoneView {
  /** Short name shown beside times (PST, or PST/PDT for America/Los_Angeles). */
  name: string;
  /** Milliseconds to add to a UTC instant to read its wall-clock time in the zone. */
  offsetAt(ms: number): number;
}

/** The limiting day's zone: its days start at local midnight, so a day's start gives the offset. */
export function limitingDayZone(mode: LimitingDayMode): TimeZoneView {
  return {
    name: mode === 'pst' ? 'PST' : 'Los Angeles',
    offsetAt(ms) {
      const day = limitingDayOf(ms, mode);
      return Date.parse(`${day.key}T00:00:00Z`) - day.start;
    },
  };
}

/** "01-05 14:30" in the zone. */
export function localStamp(ms: number, zone: TimeZoneView, withDate = true): string {
  const iso = new Date(ms + zone.offsetAt(ms)).toISOString();
  return withDate ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
}

/** The instant in UTC, for hovers: "2026-01-05 22:30 UTC". */
export const utcStamp = (ms: number): string => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
