import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { BadRequest } from './errors.ts';
import { Params, wholeNumber } from './params.ts';

describe('reading wire times and whole numbers', () => {
  test.prop([fc.nat({ max: 4_102_444_800 })])('an epoch time in seconds, as a number or as text, reads as the same milliseconds', (s) => {
    expect(new Params({ t: s }).epochMs('t')).toBe(s * 1000);
    expect(new Params({ t: String(s) }).epochMs('t')).toBe(s * 1000);
  });

  it('treats an absent or empty time as not given and refuses a negative or fractional one', () => {
    expect(new Params({ t: '' }).epochMs('t')).toBeUndefined();
    expect(new Params({}).epochMs('t')).toBeUndefined();
    expect(() => new Params({ t: -1 }).epochMs('t')).toThrow(new BadRequest('t must be at least 0'));
    expect(() => new Params({ t: '1.5' }).epochMs('t')).toThrow(new BadRequest('t must be a whole number'));
  });

  it('names where a whole number was read from in its 400', () => {
    expect(wholeNumber('analysis.parameters.threshold', '7', { min: 1 })).toBe(7);
    expect(() => wholeNumber('analysis.parameters.threshold', 0, { min: 1 })).toThrow(new BadRequest('analysis.parameters.threshold must be at least 1'));
  });
});
