import type { Expr } from './ast.ts';
import { caseSensitive, listItems } from './conditions.ts';
import type { FilterKind } from './parser.ts';
import type { Scope, Test } from './scope.ts';
import { targetReader } from './target-reader.ts';
import { tokensOf } from './target-tokens.ts';
import { tokenize } from './text-tokens.ts';

/**
 * The words of a `contains` / `contains_any` whose every item is a single token, or undefined. Such
 * conditions under one `or` on the same target are merged into one set lookup per token: the order of
 * an `or`'s members never changes its answer, and a 40-keyword filter then reads the text once.
 */
export function singleWords(e: Expr, kind: FilterKind): { key: string; target: string; cs: boolean; words: string[] } | undefined {
  if (e.type !== 'cond' || (e.op !== 'contains' && e.op !== 'contains_any')) return undefined;
  if (e.switches.some((w) => w.name !== 'case')) return undefined;
  const cs = caseSensitive(e, kind);
  const raw = e.arg?.kind === 'string' ? [e.arg.value] : listItems(e.arg);
  const words: string[] = [];
  for (const item of raw) {
    const t = tokenize(cs ? item : item.toLowerCase());
    if (t.length !== 1) return undefined;
    words.push(t[0]!);
  }
  return words.length > 0 ? { key: cs ? `T|${e.target}` : `t|${e.target}`, target: e.target, cs, words } : undefined;
}

/** One test per target and case mode for an `or`'s single-word conditions: a set lookup per token. */
export function mergeWordTests(items: Expr[], kind: FilterKind): Test[] {
  const groups = new Map<string, { target: string; cs: boolean; words: Set<string> }>();
  for (const x of items) {
    const w = singleWords(x, kind);
    if (!w) continue;
    let g = groups.get(w.key);
    if (!g) groups.set(w.key, (g = { target: w.target, cs: w.cs, words: new Set() }));
    for (const word of w.words) g.words.add(word);
  }
  return [...groups.entries()].map(([key, g]) => {
    const readI = targetReader(g.target);
    const words = g.words;
    return (s: Scope) => {
      const lists = tokensOf(s, key, readI, g.cs);
      for (let k = 0; k < lists.length; k++) {
        const t = lists[k]!;
        for (let j = 0; j < t.length; j++) if (words.has(t[j]!)) return true;
      }
      return false;
    };
  });
}
