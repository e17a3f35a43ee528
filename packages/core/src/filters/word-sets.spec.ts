import { describe, expect, it } from 'vitest';
import { parseDefinition } from './parser.ts';
import { singleWords } from './word-sets.ts';

const body = (text: string, kind: 'definition' | 'query' = 'definition') => parseDefinition(text, kind).body!;

describe("an or's single-word conditions", () => {
  it('are the contains / contains_any whose every item is one token, keyed by target and case mode', () => {
    expect(singleWords(body('fb.content contains "Red"'), 'definition')).toEqual({ key: 't|fb.content', target: 'fb.content', cs: false, words: ['red'] });
    expect(singleWords(body('fb.content cs contains_any "Red, blue"'), 'definition')).toEqual({ key: 'T|fb.content', target: 'fb.content', cs: true, words: ['Red', 'blue'] });
  });

  it('leave out phrases, other operators and switches other than case: those are tested one by one', () => {
    expect(singleWords(body('fb.content contains "red car"'), 'definition')).toBeUndefined();
    expect(singleWords(body('fb.content contains_any "red, red car"'), 'definition')).toBeUndefined();
    expect(singleWords(body('fb.content == "red"'), 'definition')).toBeUndefined();
    expect(singleWords(body('fb.content contains [keep(classic)] "red"'), 'definition')).toBeUndefined();
    expect(singleWords(body('not fb.content contains "red"'), 'definition')).toBeUndefined();
  });
});
