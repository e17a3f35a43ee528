import { describe, expect, it } from 'vitest';
import { BadRequest } from './errors.ts';
import { wholeNumber } from './params.ts';

describe('reading whole numbers inside a request body', () => {
  it('names where a whole number was read from in its 400', () => {
    expect(wholeNumber('analysis.parameters.threshold', '7', { min: 1 })).toBe(7);
    expect(() => wholeNumber('analysis.parameters.threshold', 0, { min: 1 })).toThrow(new BadRequest('analysis.parameters.threshold must be at least 1'));
  });
});
