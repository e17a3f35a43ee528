import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { isoTime } from './iso-time.ts';

describe('isoTime', () => {
  test.prop([fc.array(fc.integer({ min: 0, max: 253_402_300_799_999 }), { minLength: 1, maxLength: 50 })])(
    'spells every time as toISOString does, whatever the times before it',
    (times) => {
      for (const ms of times) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
    },
  );

  test.prop([fc.integer({ min: 1_700_000_000_000, max: 1_900_000_000_000 }), fc.array(fc.integer({ min: -1500, max: 1500 }), { maxLength: 40 })])(
    'spells times close together (the same second and millisecond, the next ones, the ones before) as toISOString does',
    (start, steps) => {
      let ms = start;
      for (const step of steps) {
        ms += step;
        expect(isoTime(ms)).toBe(new Date(ms).toISOString());
      }
    },
  );

  it('leaves times outside four-digit years, and fractions of a millisecond, to toISOString', () => {
    for (const ms of [-1, -62_198_755_200_000, 253_402_300_800_000, 1_700_000_000_000.5]) expect(isoTime(ms)).toBe(new Date(ms).toISOString());
  });
});
