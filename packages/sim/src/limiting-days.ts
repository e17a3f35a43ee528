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
  /** Short name shown beside times of any date (PST, or PST/PDT for America/Los_Angeles). */
  name: string;
  /** Milliseconds to add to a UTC instant to read its wall-clock time in the zone. */
  offsetAt(ms: number): number;
  /** The name at one instant, where it changes with the season (PDT in a Los Angeles summer); `name` without it. */
  nameAt?(ms: number): string;
}

/** The zone's name at an instant. */
export const zoneNameAt = (zone: TimeZoneView, ms: number): string => zone.nameAt?.(ms) ?? zone.name;

/** "UTC-08:00": the offset at an instant, so that a reader in July sees which clock "PST" means. */
export function offsetLabel(zone: TimeZoneView, ms: number): string {
  const minutes = Math.round(zone.offsetAt(ms) / 60_000);
  const a = Math.abs(minutes);
  return `UTC${minutes < 0 ? '-' : '+'}${String(Math.floor(a / 60)).padStart(2, '0')}:${String(a % 60).padStart(2, '0')}`;
}

/** The limiting day's zone: its days start at local midnight, so a day's start gives the offset. */
export function limitingDayZone(mode: LimitingDayMode): TimeZoneView {
  const offsetAt = (ms: number) => {
    const day = limitingDayOf(ms, mode);
    return Date.parse(`${day.key}T00:00:00Z`) - day.start;
  };
  // `pst` days keep UTC-08:00 all year, so PST is right in July too; Los Angeles days follow the clocks.
  if (mode === 'pst') return { name: 'PST', offsetAt };
  return { name: 'PST/PDT', offsetAt, nameAt: (ms) => (offsetAt(ms) === -7 * 3_600_000 ? 'PDT' : 'PST') };
}

/** "2026-07-06 00:00" in the zone. */
export const localDateTime = (ms: number, zone: TimeZoneView): string => new Date(ms + zone.offsetAt(ms)).toISOString().slice(0, 16).replace('T', ' ');

/** "01-05 14:30" in the zone. */
export function localStamp(ms: number, zone: TimeZoneView, withDate = true): string {
  const iso = new Date(ms + zone.offsetAt(ms)).toISOString();
  return withDate ? `${iso.slice(5, 10)} ${iso.slice(11, 16)}` : iso.slice(11, 16);
}

/** The instant in UTC, for hovers: "2026-01-05 22:30 UTC". */
export const utcStamp = (ms: number): string => `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
