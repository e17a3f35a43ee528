import { textOf, type Interaction } from './target-reader.ts';
import type { Scope } from './scope.ts';
import { tokenize } from './text-tokens.ts';

/*
 * A target's values as the text operators see them, memoised in the interaction's scope under a key of
 * target and case mode, so that every condition on the same target reads and tokenises it once.
 */

/** Token lists of a target's values, one list per value. */
export function tokensOf(s: Scope, key: string, read: (i: Interaction) => unknown, cs: boolean): string[][] {
  let t = s.memo?.get(key) as string[][] | undefined;
  if (t) return t;
  t = [];
  const v = read(s.i);
  if (Array.isArray(v)) {
    for (const x of v) {
      const text = textOf(x);
      if (text) t.push(tokenize(cs ? text : text.toLowerCase()));
    }
  } else {
    const text = textOf(v);
    if (text) t.push(tokenize(cs ? text : text.toLowerCase()));
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
