import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { compileFilter, type Interaction } from './compiled-filter.ts';
import { indexOfPhrase, tokenize } from './text-tokens.ts';

/*
 * contains, contains_any and contains_all look for each phrase's longest token in the text before they
 * tokenize it (`conditions.ts`): the verdicts must be exactly those of the phrases read in the tokens.
 */

const has = (text: string, phrase: string, cs: boolean): boolean => {
  const p = tokenize(cs ? phrase : phrase.toLowerCase());
  return p.length > 0 && indexOfPhrase(tokenize(cs ? text : text.toLowerCase()), p) >= 0;
};

// Words that are pieces of one another ("tea" in "steam"), case, punctuation and a letter outside ASCII,
// so that a substring found is often not a token found.
const piece = fc.constantFrom('tea', 'steam', 'Tea', 'team', 'coffee', 'Coffee!', 'café', 'a', 'at', '50%', 'big-data', 'big', 'data', '');
const text = fc.array(piece, { maxLength: 8 }).chain((ws) => fc.constantFrom(' ', '  ', ', ').map((sep) => ws.join(sep)));
const phrase = fc.array(piece.filter((w) => w !== ''), { minLength: 1, maxLength: 2 }).map((ws) => ws.join(' '));
const quoted = (s: string) => s.replaceAll('\\', '\\\\').replaceAll('"', '\\"');
const story = (values: string[]): Interaction => ({ fb: { content: values.length === 1 ? values[0] : values } });

describe('a phrase ruled out by its longest token', () => {
  test.prop([fc.array(text, { minLength: 1, maxLength: 3 }), phrase, fc.boolean()])('contains matches exactly where the phrase is in some value\'s tokens', (values, p, cs) => {
    const f = compileFilter(`fb.content ${cs ? 'cs ' : ''}contains "${quoted(p)}"`);
    expect(f.match(story(values)).matched).toBe(values.some((v) => has(v, p, cs)));
  });

  test.prop([fc.array(text, { minLength: 1, maxLength: 3 }), fc.array(phrase, { minLength: 1, maxLength: 3 }), fc.boolean()])(
    'contains_any matches where one phrase is in some value, contains_all where every phrase is in one value',
    (values, ps, cs) => {
      const list = quoted(ps.join(', '));
      const items = ps.join(', ').split(',').map((x) => x.trim()).filter((x) => tokenize(cs ? x : x.toLowerCase()).length > 0);
      const any = compileFilter(`fb.content ${cs ? 'cs ' : ''}contains_any "${list}"`);
      const all = compileFilter(`fb.content ${cs ? 'cs ' : ''}contains_all "${list}"`);
      const i = story(values);
      expect(any.match(i).matched).toBe(values.some((v) => items.some((x) => has(v, x, cs))));
      expect(all.match(i).matched).toBe(values.some((v) => items.every((x) => has(v, x, cs))));
    },
  );

  it('a substring that is not a token rules nothing in', () => {
    expect(compileFilter('fb.content contains "tea"').match(story(['steam team'])).matched).toBe(false);
    expect(compileFilter('fb.content contains_any "tea, big data"').match(story(['big-data at the tea'])).matched).toBe(true);
  });
});
