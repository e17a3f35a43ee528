import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import type { Interaction } from '../filters/index.ts';
import { authorOf, indexTimeOf } from './interaction-facts.ts';

/** The rule as written: the first of these paths that holds a non-empty string or a number. */
const PATHS = [
  ['fb', 'author', 'id'],
  ['li', 'user', 'member', 'id'],
  ['interaction', 'author', 'id'],
  ['interaction', 'author', 'username'],
];
function walk(i: unknown, path: string[]): unknown {
  let node = i;
  for (const key of path) {
    if (typeof node !== 'object' || node === null) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}
function authorByPaths(i: unknown): string | undefined {
  for (const p of PATHS) {
    const v = walk(i, p);
    if (typeof v === 'string' && v.length > 0) return v;
    if (typeof v === 'number') return String(v);
  }
  return undefined;
}

/** Values a client may put anywhere on the way to an author: absent, empty, numbers, arrays, nulls. */
const leaf = fc.oneof(fc.constant(undefined), fc.constant(null), fc.constant(''), fc.string({ maxLength: 4 }), fc.integer(), fc.double(), fc.boolean(), fc.constant([]));
const maybe = <T>(a: fc.Arbitrary<T>) => fc.oneof(a, leaf);
const node = (keys: string[], inner: fc.Arbitrary<unknown>) =>
  maybe(fc.record(Object.fromEntries(keys.map((k) => [k, inner])), { requiredKeys: [] }));
const interaction = fc.record(
  {
    fb: node(['author'], node(['id'], leaf)),
    li: node(['user'], node(['member'], node(['id'], leaf))),
    interaction: node(['author', 'created_at'], node(['id', 'username'], leaf)),
  },
  { requiredKeys: [] },
);

describe('interaction facts', () => {
  test.prop([interaction])('authorOf names the first path that holds an author, as the path walk does', (i) => {
    expect(authorOf(i as Interaction)).toBe(authorByPaths(i));
  });

  test.prop([fc.oneof(leaf, fc.integer({ min: 0, max: 4_000_000_000 }), fc.constant('1700000000'), fc.constant('2026-01-05T08:00:00Z')), fc.boolean()])(
    'indexTimeOf reads interaction.created_at, and never answers later than now',
    (createdAt, nested) => {
      const now = 1_800_000_000_000;
      const i = (nested ? { interaction: { created_at: createdAt } } : { interaction: createdAt }) as Interaction;
      const t = indexTimeOf(i, now);
      expect(t).toBeLessThanOrEqual(now);
      if (!nested) expect(t).toBe(now);
    },
  );

  test('an author given as a number is counted as its text; an empty id falls through to the next path', () => {
    expect(authorOf({ fb: { author: { id: 42 } } } as Interaction)).toBe('42');
    expect(authorOf({ fb: { author: { id: '' } }, interaction: { author: { username: 'ann' } } } as Interaction)).toBe('ann');
    expect(authorOf({ interaction: { content: 'x' } } as Interaction)).toBeUndefined();
  });
});
