import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { callTimes } from './call-times.ts';

const HOUR = 3_600_000;
const all = (it: Iterable<number>) => [...it];

describe('call times', () => {
  test.prop([fc.integer({ min: 250, max: 100_000 }), fc.integer({ min: 0, max: 10 * HOUR }), fc.integer({ min: 0, max: 2 * HOUR })])(
    'a steady schedule calls ceil(span / interval) times, in order, inside its span',
    (interval, from, span) => {
      const times = all(callTimes({ type: 'steady', interval }, from, from + span));
      expect(times.length).toBe(Math.ceil(span / interval));
      const misplaced = times.filter((t, i) => t < from || t >= from + span || (i > 0 && t <= times[i - 1]!));
      expect(misplaced).toEqual([]);
    },
  );

  test.prop([fc.array(fc.integer({ min: 0, max: 50 }), { minLength: 24, maxLength: 24 }), fc.integer({ min: -12, max: 14 })])(
    'a daily curve makes exactly its hourly figures in each clock hour of a day',
    (hourly, utcOffsetHours) => {
      const day0 = Date.parse('2026-03-02T00:00:00Z');
      const times = all(callTimes({ type: 'daily', hourly, utcOffsetHours }, day0, day0 + 24 * HOUR));
      expect(times.length).toBe(hourly.reduce((a, b) => a + b, 0));
      for (let h = 0; h < 24; h++) {
        const inHour = times.filter((t) => t >= day0 + h * HOUR && t < day0 + (h + 1) * HOUR).length;
        expect(inHour).toBe(hourly[(((h + utcOffsetHours) % 24) + 24) % 24]);
      }
    },
  );

  it('bursts: size calls spacing apart, every period', () => {
    expect(all(callTimes({ type: 'burst', size: 3, every: 60_000, spacing: 1000 }, 0, 125_000))).toEqual([0, 1000, 2000, 60_000, 61_000, 62_000, 120_000, 121_000, 122_000]);
  });

  it('fractional daily figures carry over from hour to hour', () => {
    const hourly = Array.from({ length: 24 }, () => 0.5);
    expect(all(callTimes({ type: 'daily', hourly, utcOffsetHours: 0 }, 0, 24 * HOUR)).length).toBe(12);
  });
});
