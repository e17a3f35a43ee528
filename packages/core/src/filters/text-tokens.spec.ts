import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { hasPhraseAt, indexOfPhrase, nearestSpan, tokenize, tokenPlaces, withinWindow, wordPlaces } from './text-tokens.ts';

// Few distinct words, so that phrases and windows are often found.
const word = fc.constantFrom('a', 'b', 'c', 'd', ',', '!');
const tokens = fc.array(word, { maxLength: 60 });
// Mostly filler, so that the words are rare and their places are read rather than every token.
const sparse = fc.array(fc.oneof({ weight: 8, arbitrary: fc.constant('x') }, { weight: 1, arbitrary: word }), { maxLength: 120 });

describe('text operators read from where tokens stand', () => {
  test.prop([tokens, fc.array(word, { maxLength: 4 })])('a phrase is found from its places exactly where a scan finds it', (t, phrase) => {
    expect(hasPhraseAt(t, tokenPlaces(t), phrase).found).toBe(indexOfPhrase(t, phrase) >= 0);
    expect(hasPhraseAt(t, undefined, phrase).found).toBe(indexOfPhrase(t, phrase) >= 0);
  });

  test.prop([fc.oneof(tokens, sparse), fc.array(fc.constantFrom('a', 'b', 'c', 'd'), { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 10 })])(
    'contains_near from the nearest span of its words answers as the scan of every token, at any distance',
    (t, words, distance) => {
      expect(nearestSpan(t, wordPlaces(t), words).span <= distance).toBe(withinWindow(t, words, distance));
      expect(nearestSpan(t, undefined, words).span <= distance).toBe(withinWindow(t, words, distance));
    },
  );

  test.prop([fc.string({ maxLength: 200 })])('the places of a text hold each of its tokens once', (text) => {
    const t = tokenize(text);
    const places = tokenPlaces(t);
    expect([...places.values()].reduce((n, p) => n + p.length, 0)).toBe(t.length);
  });
});
