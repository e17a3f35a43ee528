import type { TagRule } from './ast.ts';
import { compileExprSteps } from './expression-steps.ts';
import { compileExpr } from './expressions.ts';
import type { WorkMeter } from './linear-regex.ts';
import type { FilterKind } from './parser.ts';
import type { IncludedFilter, Resolve, Scope, Steps, TagOutput, Test } from './scope.ts';
import { targetReader, type Interaction } from './target-reader.ts';
import { tokensOf } from './target-tokens.ts';
import { singleWords } from './word-sets.ts';

/** A definition's tag rules compiled: applied in one go, or in steps (`Steps`) with the same tags. */
export interface TagRules {
  apply(s: Scope, out: TagOutput): void;
  applySteps(s: Scope & { meter: WorkMeter }, out: TagOutput): Generator<void, void, void>;
}

/**
 * Tag rules applied in order: named tags, namespaced tags, scores; included sets where they stand.
 * Classifiers hold thousands of rules that each look for a few words, so rules whose body is a
 * single-word `contains`/`contains_any` are indexed by word: the text is read once and only the rules
 * whose words occur fire, still in rule order.
 */
export function compileTagRules(rules: TagRule[], kind: FilterKind, resolve: Resolve): TagRules {
  type Fire = (out: TagOutput) => void;
  const fires: Array<Fire | null> = [];
  const tests: Array<Test | null> = [];
  const includes: Array<((s: Scope, out: TagOutput) => void) | null> = [];
  const groups = new Map<string, { readI: (i: Interaction) => unknown; cs: boolean; byWord: Map<string, number[]> }>();
  rules.forEach((r, k) => {
    if (r.type === 'include') {
      let bound: IncludedFilter | undefined = resolve(r.hash);
      includes.push((s, out) => {
        bound ??= resolve(r.hash);
        bound?.applyTags(s, out);
      });
      fires.push(null);
      tests.push(null);
      return;
    }
    includes.push(null);
    fires.push(fireOf(r));
    const words = singleWords(r.body, kind);
    if (!words) {
      tests.push(compileExpr(r.body, kind, resolve));
      return;
    }
    tests.push(null);
    let g = groups.get(words.key);
    if (!g) groups.set(words.key, (g = { readI: targetReader(words.target), cs: words.cs, byWord: new Map() }));
    for (const w of words.words) {
      const list = g.byWord.get(w);
      if (!list) g.byWord.set(w, [k]);
      else if (list[list.length - 1] !== k) list.push(k);
    }
  });
  // Rules tested one by one (and inclusions), in order; indexed rules join them when their words occur.
  const always: number[] = [];
  for (let k = 0; k < rules.length; k++) if (includes[k] || tests[k]) always.push(k);
  const run = (k: number, s: Scope, out: TagOutput): void => {
    const inc = includes[k];
    if (inc) inc(s, out);
    else if (!tests[k] || tests[k]!(s)) fires[k]!(out);
  };
  // The rules' tests in steps, compiled when an interaction first needs them.
  let steps: Array<Steps | null> | undefined;
  const runSteps = function* (k: number, s: Scope & { meter: WorkMeter }, out: TagOutput): Generator<void, void, void> {
    const r = rules[k]!;
    if (r.type === 'include') {
      const bound = resolve(r.hash);
      if (bound) yield* bound.applyTagsSteps(s, out);
      return;
    }
    if (!tests[k]) return fires[k]!(out);
    steps ??= rules.map((x, j) => (x.type === 'include' || !tests[j] ? null : compileExprSteps(x.body, kind, resolve)));
    if (yield* steps[k]!(s)) fires[k]!(out);
  };
  /** The rules to run for this interaction, in rule order: every tested rule, and the indexed ones whose words occur. */
  const order = (s: Scope): number[] => {
    if (groups.size === 0) return always;
    const hits: number[] = [];
    for (const [key, g] of groups) {
      const lists = tokensOf(s, key, g.readI, g.cs);
      for (const tokens of lists) {
        for (const t of tokens) {
          const ks = g.byWord.get(t);
          if (ks) for (const k of ks) hits.push(k);
        }
      }
    }
    hits.sort((a, b) => a - b);
    // Merge the two ascending lists, skipping repeated hits.
    const out: number[] = [];
    let h = 0;
    let last = -1;
    for (let a = 0; a <= always.length; a++) {
      const next = a < always.length ? always[a]! : Infinity;
      while (h < hits.length && hits[h]! < next) {
        const k = hits[h++]!;
        if (k !== last) out.push(k);
        last = k;
      }
      if (next !== Infinity) out.push(next);
    }
    return out;
  };
  return {
    apply(s, out) {
      for (const k of order(s)) run(k, s, out);
    },
    *applySteps(s, out) {
      for (const k of order(s)) yield* runSteps(k, s, out);
    },
  };
}

function fireOf(r: Exclude<TagRule, { type: 'include' }>): (out: TagOutput) => void {
  if (r.type === 'score') {
    const branch = r.namespace.slice(0, -1).join('.');
    const cls = r.namespace[r.namespace.length - 1]!;
    return (out) => {
      out.scores ??= new Map();
      let b = out.scores.get(branch);
      if (!b) out.scores.set(branch, (b = new Map()));
      b.set(cls, (b.get(cls) ?? 0) + r.score);
    };
  }
  const path = r.namespace.join('.');
  const flat = path === '' ? r.name : `${path}.${r.name}`;
  const treeKey = `${path}\u0000${r.name}`;
  return (out) => {
    if (!out.seen.has(flat)) {
      out.seen.add(flat);
      out.tags.push(flat);
    }
    if (path !== '' && !out.seen.has(treeKey)) {
      out.seen.add(treeKey);
      out.tree ??= {};
      (out.tree[path] ??= []).push(r.name);
    }
  };
}
