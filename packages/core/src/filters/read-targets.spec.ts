import { describe, expect, it } from 'vitest';
import { compileFilter } from './compiled-filter.ts';
import { verdictReadsOnly } from './read-targets.ts';

const TEXTS = new Set(['interaction.content', 'fb.content']);
const readsOnlyTexts = (csdl: string) => verdictReadsOnly(compileFilter(csdl), TEXTS);

describe('whether a filter decides by some targets alone', () => {
  it('answers yes when every condition of the body names one of them', () => {
    expect(readsOnlyTexts('fb.content contains_any "coffee, tea"')).toBe(true);
    expect(readsOnlyTexts('interaction.content contains "a" or (not fb.content exists and interaction.content == "")')).toBe(true);
  });

  it('leaves tag rules out: they decide tags, not the match', () => {
    expect(readsOnlyTexts('tag "women" { fb.author.gender == "female" } return { fb.content contains "coffee" }')).toBe(true);
  });

  it('answers no for another target anywhere in the body, or an included definition', () => {
    expect(readsOnlyTexts('fb.content contains "coffee" and fb.author.gender == "female"')).toBe(false);
    expect(readsOnlyTexts('not fb.author.age == "18-24"')).toBe(false);
    const included = compileFilter('fb.content contains "coffee"');
    expect(readsOnlyTexts(`stream "${included.hash}"`)).toBe(false);
  });
});
