import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import type { LimitingDayMode } from './limiting-day.ts';
import { limitingDayOf, nextLimitingDay } from './limiting-day.ts';

const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

const MODES: LimitingDayMode[] = ['pst', 'america-los-angeles'];
// 1990 to 2060: covers many clock changes in both directions.
const instant = fc.integer({ min: Date.UTC(1990, 0, 1), max: Date.UTC(2060, 0, 1) });
const mode = fc.constantFrom(...MODES);

describe('the limiting day', () => {
  test.prop([instant, mode])('every instant lies in exactly one day: its own', (ms, m) => {
    const day = limitingDayOf(ms, m);
    expect(day.start).toBeLessThanOrEqual(ms);
    expect(ms).toBeLessThan(day.end);
    // The days just before and after do not hold it.
    expect(limitingDayOf(day.start - 1, m).end).toBe(day.start);
    expect(limitingDayOf(day.end, m).start).toBe(day.end);
  });

  test.prop([instant, mode, fc.integer({ min: 1, max: 40 })])('consecutive days tile time without gap or overlap', (ms, m, n) => {
    let day = limitingDayOf(ms, m);
    for (let i = 0; i < n; i++) {
      const next = nextLimitingDay(day, m);
      expect(next.start).toBe(day.end);
      expect(next.key > day.key).toBe(true);
      day = next;
    }
  });

  test.prop([instant])('pst days are exactly 24 hours and start at 08:00 UTC', (ms) => {
    const day = limitingDayOf(ms, 'pst');
    expect(day.end - day.start).toBe(DAY_MS);
    expect(new Date(day.start).getUTCHours()).toBe(8);
  });

  test.prop([instant])('zone days are 23, 24 or 25 hours and start at local midnight', (ms) => {
    const day = limitingDayOf(ms, 'america-los-angeles');
    expect([23 * HOUR_MS, 24 * HOUR_MS, 25 * HOUR_MS]).toContain(day.end - day.start);
    expect([7, 8]).toContain(new Date(day.start).getUTCHours());
  });

  test.prop([instant, mode])('every instant of a day maps back to the same day', (ms, m) => {
    const day = limitingDayOf(ms, m);
    expect(limitingDayOf(day.start, m)).toEqual(day);
    expect(limitingDayOf(day.end - 1, m)).toEqual(day);
  });

  test('the clock changes of 2026 give a 23-hour and a 25-hour day in the zone, 24 in pst', () => {
    const spring = limitingDayOf(Date.parse('2026-03-08T12:00:00Z'), 'america-los-angeles');
    expect(spring).toEqual({ key: '2026-03-08', start: Date.parse('2026-03-08T08:00:00Z'), end: Date.parse('2026-03-09T07:00:00Z') });
    const autumn = limitingDayOf(Date.parse('2026-11-01T12:00:00Z'), 'america-los-angeles');
    expect(autumn.end - autumn.start).toBe(25 * HOUR_MS);
    const pst = limitingDayOf(Date.parse('2026-07-01T07:30:00Z'), 'pst');
    expect(pst).toEqual({ key: '2026-06-30', start: Date.parse('2026-06-30T08:00:00Z'), end: Date.parse('2026-07-01T08:00:00Z') });
  });

  test.prop([fc.array(fc.tuple(instant, fc.integer({ min: -2 * DAY_MS, max: 2 * DAY_MS })), { minLength: 1, maxLength: 20 }), mode])(
    'the day remembered from the last answer is the day a fresh reckoning gives, for instants in any order',
    (steps, m) => {
      for (const [at, near] of steps) {
        for (const ms of [at, at + near]) {
          const remembered = limitingDayOf(ms, m);
          // An instant 400 days away makes the next answer a fresh reckoning.
          limitingDayOf(ms + 400 * DAY_MS, m);
          expect(limitingDayOf(ms, m)).toEqual(remembered);
          expect(ms >= remembered.start && ms < remembered.end).toBe(true);
        }
      }
    },
  );
});
