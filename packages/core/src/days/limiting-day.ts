import { formatInTimeZone, fromZonedTime } from 'date-fns-tz';

/** Which zone the limiting day follows: a fixed UTC−8 (the contract's PST) or Los Angeles' own clock. */
export type LimitingDayMode = 'pst' | 'america-los-angeles';

/** One limiting day: `[start, end)` in Unix milliseconds, and its calendar date in the day's zone. */
export interface LimitingDay {
  start: number;
  end: number;
  /** `YYYY-MM-DD` of the day in its zone; names the day's capacity stream. */
  key: string;
}

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;
/** Pacific Standard Time is UTC-08:00 all year: the seed's limiting day ignores daylight saving. */
const PST_OFFSET_MS = -8 * HOUR_MS;
const ZONE = 'America/Los_Angeles';

/**
 * The last day answered, per mode: calls ask for the day of instants that mostly fall in one day (every
 * compile checks the day's definition budget), and spelling its key cost more than the rest of the check.
 * Frozen, as every caller that asks within the day shares it.
 */
const lastDay: Record<LimitingDayMode, LimitingDay | undefined> = { pst: undefined, 'america-los-angeles': undefined };

/** The limiting day that holds the instant `ms`. */
export function limitingDayOf(ms: number, mode: LimitingDayMode): LimitingDay {
  const last = lastDay[mode];
  if (last !== undefined && ms >= last.start && ms < last.end) return last;
  const day = Object.freeze(dayHolding(ms, mode));
  lastDay[mode] = day;
  return day;
}

function dayHolding(ms: number, mode: LimitingDayMode): LimitingDay {
  if (!Number.isFinite(ms)) throw new RangeError(`not an instant: ${ms}`);
  if (mode === 'pst') {
    const start = Math.floor((ms + PST_OFFSET_MS) / DAY_MS) * DAY_MS - PST_OFFSET_MS;
    return { start, end: start + DAY_MS, key: isoDate(start + PST_OFFSET_MS) };
  }
  // Midnight always exists in Los Angeles (the clocks change at 02:00), so the local date alone names
  // the day; its length follows from the next date's midnight (23, 24 or 25 hours).
  const key = formatInTimeZone(new Date(ms), ZONE, 'yyyy-MM-dd');
  const start = fromZonedTime(`${key}T00:00:00`, ZONE).getTime();
  const next = isoDate(Date.parse(`${key}T00:00:00Z`) + DAY_MS);
  const end = fromZonedTime(`${next}T00:00:00`, ZONE).getTime();
  return { start, end, key };
}

/** The limiting day after `day`. */
export function nextLimitingDay(day: LimitingDay, mode: LimitingDayMode): LimitingDay {
  return limitingDayOf(day.end, mode);
}

function isoDate(ms: number): string {
  return new Date(ms).toISOString().slice(0, 10);
}
