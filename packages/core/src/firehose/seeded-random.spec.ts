import { expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { SeededRandom } from './seeded-random.ts';

test.prop([fc.integer(), fc.integer({ min: 0, max: 70 })])('hex spells the draws in order, eight digits each, cut to the length asked', (seed, length) => {
  const draws = new SeededRandom(seed);
  let digits = '';
  while (digits.length < length) digits += ((draws.next() * 4294967296) >>> 0).toString(16).padStart(8, '0');
  expect(new SeededRandom(seed).hex(length)).toBe(digits.slice(0, length));
});
