import { describe, expect, it } from 'vitest';
import type { Scope } from './scope.ts';
import { targetReader } from './target-reader.ts';
import { textsOf, tokensOf } from './target-tokens.ts';

describe("a target's tokens and texts, memoised per interaction", () => {
  it('tokenise each value, folding case unless asked not to', () => {
    const s: Scope = { i: { fb: { hashtags: ['Red Car', 'blue'] } }, memo: undefined };
    const read = targetReader('fb.hashtags');
    expect(tokensOf(s, 't|fb.hashtags', read, false)).toEqual([['red', 'car'], ['blue']]);
    expect(tokensOf(s, 'T|fb.hashtags', read, true)).toEqual([['Red', 'Car'], ['blue']]);
    expect(textsOf(s, 's|fb.hashtags', read, false)).toEqual(['red car', 'blue']);
  });

  it('read the interaction once per key: every condition on the target shares the work', () => {
    const s: Scope = { i: { fb: { content: 'Hello world' } }, memo: undefined };
    let reads = 0;
    const read = (i: Record<string, unknown>) => {
      reads++;
      return (i.fb as { content: string }).content;
    };
    const first = tokensOf(s, 't|fb.content', read, false);
    expect(tokensOf(s, 't|fb.content', read, false)).toBe(first);
    expect(reads).toBe(1);
    textsOf(s, 's|fb.content', read, false);
    textsOf(s, 's|fb.content', read, false);
    expect(reads).toBe(2);
  });
});
