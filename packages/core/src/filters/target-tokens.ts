import { textOf, type Interaction } from './target-reader.ts';
import type { Scope } from './scope.ts';
import { tokenize } from './text-tokens.ts';

/*
 * A target's values as the text operators see them, memoised in the interaction's scope under a key of
 * target and case mode, so that every condition on the same target reads and tokenises it once.
 */

/**
 * Token lists of short texts seen lately, case-folded and as written. Interactions repeat their texts
 * (a week of the synthetic firehose says 360,000 contents, 24,000 of them different), and tokenizing
 * each again was most of what a recording's filter cost. Token lists are never changed by a reader, so
 * one list serves every interaction with that text. Bounded: emptied when full, long texts not kept.
 */
const TOKENS_FOLDED = new Map<string, string[]>();
const TOKENS_AS_WRITTEN = new Map<string, string[]>();
const MAX_CACHED_TEXTS = 32_768;
const MAX_CACHED_LENGTH = 200;

function tokensOfText(text: string, cs: boolean): string[] {
  if (text.length > MAX_CACHED_LENGTH) return tokenize(cs ? text : text.toLowerCase());
  const cache = cs ? TOKENS_AS_WRITTEN : TOKENS_FOLDED;
  let t = cache.get(text);
  if (t === undefined) {
    if (cache.size >= MAX_CACHED_TEXTS) cache.clear();
    cache.set(text, (t = tokenize(cs ? text : text.toLowerCase())));
  }
  return t;
}

/** Token lists of a target's values, one list per value. */
export function tokensOf(s: Scope, key: string, read: (i: Interaction) => unknown, cs: boolean): string[][] {
  let t = s.memo?.get(key) as string[][] | undefined;
  if (t) return t;
  t = [];
  const v = read(s.i);
  if (Array.isArray(v)) {
    for (const x of v) {
      const text = textOf(x);
      if (text) t.push(tokensOfText(text, cs));
    }
  } else {
    const text = textOf(v);
    if (text) t.push(tokensOfText(text, cs));
  }
  (s.memo ??= new Map()).set(key, t);
  return t;
}

/** A target's values as whole texts (for `substr` and regular expressions), case-folded unless `cs`. */
export function textsOf(s: Scope, key: string, read: (i: Interaction) => unknown, cs: boolean): string[] {
  let t = s.memo?.get(key) as string[] | undefined;
  if (t) return t;
  t = [];
  const v = read(s.i);
  if (Array.isArray(v)) {
    for (const x of v) {
      const text = textOf(x);
      if (text !== undefined) t.push(cs ? text : text.toLowerCase());
    }
  } else {
    const text = textOf(v);
    if (text !== undefined) t.push(cs ? text : text.toLowerCase());
  }
  (s.memo ??= new Map()).set(key, t);
  return t;
}
