import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { scoringWinners } from './scoring.ts';

describe('scoring winners', () => {
  it('names the highest class of each branch as branch.class; a tie has no winner', () => {
    const scores = new Map([
      ['sentiment', new Map([['pos', 3], ['neg', 1]])],
      ['topic.cars', new Map([['bmw', 2], ['audi', 2]])],
      ['', new Map([['spam', 0.5]])],
    ]);
    expect(scoringWinners(scores)).toEqual(['sentiment.pos', 'spam']);
  });

  test.prop([fc.dictionary(fc.constantFrom('a', 'b', 'c', 'd'), fc.integer({ min: -5, max: 5 }), { minKeys: 1 })])(
    'a winner scores above every other class of its branch',
    (classes) => {
      const [winner] = scoringWinners(new Map([['b', new Map(Object.entries(classes))]]));
      const top = Math.max(...Object.values(classes));
      const atTop = Object.keys(classes).filter((c) => classes[c] === top);
      expect(winner).toBe(atTop.length === 1 ? `b.${atTop[0]}` : undefined);
    },
  );
});
