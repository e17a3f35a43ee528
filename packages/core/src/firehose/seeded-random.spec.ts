import { expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { SeededRandom, hexOfWords } from './seeded-random.ts';

test.prop([fc.integer(), fc.integer({ min: 0, max: 70 })])('hex spells the draws in order, eight digits each, cut to the length asked', (seed, length) => {
  const draws = new SeededRandom(seed);
  let digits = '';
  while (digits.length < length) digits += ((draws.next() * 4294967296) >>> 0).toString(16).padStart(8, '0');
  expect(new SeededRandom(seed).hex(length)).toBe(digits.slice(0, length));
});

test.prop([fc.integer(), fc.integer({ min: 0, max: 50 }), fc.integer({ min: 0, max: 20 })])(
  'skipping n draws stands where making them would, and a generator started at a position draws what follows it',
  (seed, before, n) => {
    const made = new SeededRandom(seed);
    const skipped = new SeededRandom(seed);
    for (let k = 0; k < before; k++) made.next(), skipped.next();
    const from = new SeededRandom(made.position);
    for (let k = 0; k < n; k++) made.next();
    skipped.skip(n);
    expect(skipped.position).toBe(made.position);
    expect(skipped.next()).toBe(made.next());
    const again = new SeededRandom(seed);
    for (let k = 0; k < before; k++) again.next();
    expect(from.next()).toBe(again.next());
  },
);

test.prop([fc.integer()])('word is the 32 bits hex(8) spells, and hexOfWords spells four words as hex(32) does', (seed) => {
  const a = new SeededRandom(seed);
  const words = [a.word(), a.word(), a.word(), a.word()] as const;
  expect(hexOfWords(...words)).toBe(new SeededRandom(seed).hex(32));
});
