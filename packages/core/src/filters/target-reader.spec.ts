import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { each, numberOf, present, readTarget, targetReader, textOf, type Interaction } from './target-reader.ts';

describe('reading a target', () => {
  const segment = fc.constantFrom('a', 'b', 'c');
  const leaf = fc.oneof(fc.string({ maxLength: 3 }), fc.integer(), fc.constant(null), fc.constant(''));
  const { node } = fc.letrec((tie) => ({
    node: fc.oneof({ depthSize: 'small', withCrossShrink: true }, leaf, fc.array(tie('node'), { maxLength: 3 }), fc.dictionary(segment, tie('node'), { maxKeys: 3 })),
  }));
  const interaction = fc.dictionary(fc.oneof(segment, fc.constantFrom('a.b', 'a.b.c', 'b.c')), node, { maxKeys: 4 }) as fc.Arbitrary<Interaction>;
  const path = fc.array(segment, { minLength: 2, maxLength: 4 }).map((s) => s.join('.'));

  test.prop([interaction, path], { numRuns: 300 })('the one-target reader (the hot path) reads exactly what readTarget reads', (i, p) => {
    expect(targetReader(p)(i)).toEqual(readTarget(i, p));
  });

  it('maps over arrays on the way and flattens what they give; a flat key stands in for an absent nest', () => {
    const i = { fb: { topics: [{ name: ['BMW', 'Mini'] }, { name: 'Audi' }, { name: null }] }, 'links.domain': 'a.com' };
    expect(targetReader('fb.topics.name')(i)).toEqual(['BMW', 'Mini', 'Audi']);
    expect(targetReader('links.domain')(i)).toBe('a.com');
    expect(targetReader('fb.topics.other')(i)).toBeUndefined();
  });
});

describe("a target's values", () => {
  it('are present when they hold something: not null, empty text or a list of nothing', () => {
    expect([0, false, 'x', ['', 'y']].map(present)).toEqual([true, true, true, true]);
    expect([undefined, null, '', [], ['', null]].map(present)).toEqual([false, false, false, false, false]);
  });

  it('match element-wise, skipping missing elements', () => {
    expect(each(['a', null, 'b'], (x) => x === 'b')).toBe(true);
    expect(each([null, undefined], () => true)).toBe(false);
    expect(each('a', (x) => x === 'a')).toBe(true);
  });

  it('read as text and as numbers only where they have such a form', () => {
    expect([textOf('a'), textOf(3), textOf(true), textOf({}), textOf(null)]).toEqual(['a', '3', 'true', undefined, undefined]);
    expect([numberOf(3), numberOf('4.5'), numberOf(' '), numberOf(null), numberOf('x')]).toEqual([3, 4.5, NaN, NaN, NaN]);
  });
});
