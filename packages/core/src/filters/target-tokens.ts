import { textOf, type Interaction } from './target-reader.ts';
import type { Scope } from './scope.ts';
import { tokenize } from './text-tokens.ts';

/*
 * A target's values as the text operators see them, memoised in the interaction's scope under a key of
 * target and case mode, so that every condition on the same target reads and tokenises it once.
 */

/** Token lists of a target's values, one list per value (an empty value has none). */
export function tokensOf(s: Scope, key: string, read: (i: Interaction) => unknown, cs: boolean): string[][] {
  return memoised(s, key, read, cs ? tokensAsIs : tokensFolded);
}

/** A target's values as whole texts (for `substr` and regular expressions), case-folded unless `cs`. */
export function textsOf(s: Scope, key: string, read: (i: Interaction) => unknown, cs: boolean): string[] {
  return memoised(s, key, read, cs ? textAsIs : textFolded);
}

const tokensAsIs = (text: string): string[] | undefined => (text ? tokenize(text) : undefined);
const tokensFolded = (text: string): string[] | undefined => (text ? tokenize(text.toLowerCase()) : undefined);
const textAsIs = (text: string): string => text;
const textFolded = (text: string): string => text.toLowerCase();

/** What `each` makes of each of a target's values (those it answers `undefined` for left out), kept in the scope under `key`. */
function memoised<T>(s: Scope, key: string, read: (i: Interaction) => unknown, each: (text: string) => T | undefined): T[] {
  let t = s.memo?.get(key) as T[] | undefined;
  if (t) return t;
  t = [];
  const v = read(s.i);
  if (Array.isArray(v)) {
    for (const x of v) {
      const text = textOf(x);
      const made = text === undefined ? undefined : each(text);
      if (made !== undefined) t.push(made);
      // Read, folded and tokenised once for every condition on the target: paid once.
      if (text !== undefined && s.meter) s.meter.work += text.length;
    }
  } else {
    const text = textOf(v);
    const made = text === undefined ? undefined : each(text);
    if (made !== undefined) t.push(made);
    if (text !== undefined && s.meter) s.meter.work += text.length;
  }
  (s.memo ??= new Map()).set(key, t);
  return t;
}
