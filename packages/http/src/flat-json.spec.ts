import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { flatJson } from './api-handler.ts';

describe('flatJson: the answer body spelled as JSON.stringify spells it', () => {
  it('spells the common answers by hand, and the same text', () => {
    for (const body of [{}, { created_at: '2026-03-02 08:05:37', dpu: '0.1' }, { hash: 'ab', n: -0, big: 1e21, ok: true, no: false, none: null }, { 1: 'a', b: 2, 0: 'c' }]) {
      expect(flatJson(body)).toBe(JSON.stringify(body));
    }
  });

  it('leaves escapes, nesting, undefined values, toJSON and other prototypes to JSON.stringify', () => {
    class Shaped {
      a = 'x';
    }
    for (const body of [{ a: 'say "hi"' }, { 'k\\': 1 }, { a: '\ud800' }, { a: 'line\nbreak' }, { a: { b: 1 } }, { a: [1] }, { a: undefined, b: 1 }, { a: NaN }, { toJSON: () => 'x' }, new Shaped(), [1, 2], 'text', 3, null]) {
      expect(flatJson(body)).toBe(JSON.stringify(body));
    }
  });

  test.prop([fc.dictionary(fc.string(), fc.oneof(fc.string(), fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.object({ maxDepth: 1 })))], { numRuns: 500 })(
    'any object of keys and simple values',
    (body) => {
      expect(flatJson(body)).toBe(JSON.stringify(body));
    },
  );
});
