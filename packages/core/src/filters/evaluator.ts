import type { Definition } from './ast.ts';
import type { WorkMeter } from './linear-regex.ts';
import { compileExprSteps } from './expression-steps.ts';
import { compileExpr } from './expressions.ts';
import type { FilterKind } from './parser.ts';
import type { Resolve, Scope, Steps, TagOutput, Test } from './scope.ts';
import { scoringWinners } from './scoring.ts';
import { compileTagRules } from './tag-rules.ts';
import type { Interaction } from './target-reader.ts';

/*
 * A whole definition compiled: its return block as one test (`expressions.ts`), its tag rules
 * (`tag-rules.ts`) and scoring (`scoring.ts`), giving each interaction a `MatchResult`; and that result
 * written into the interaction where analysis reads it (`applyTags`).
 */

/** What one interaction gets from a definition. */
export interface MatchResult {
  matched: boolean;
  /**
   * Every tag it gets: un-namespaced tags by name (`interaction.tags`), namespaced ones as
   * `<namespace>.<name>` (e.g. `device.model.iPhone`).
   */
  tags: string[];
  /** Namespaced tags by namespace path (`interaction.tag_tree.<path>`). */
  tagTree?: Record<string, string[]>;
  /** Scoring winners, `<branch>.<class>` (`interaction.ml.categories`). */
  categories?: string[];
}

/** A compiled definition: its test and tag rules for inclusion by others, and `match` for one interaction. */
export interface Evaluator {
  test: Test;
  applyTags(s: Scope, out: TagOutput): void;
  match(i: Interaction, memo?: Map<string, unknown>, meter?: WorkMeter): MatchResult;
  testSteps: Steps;
  applyTagsSteps(s: Scope & { meter: WorkMeter }, out: TagOutput): Generator<void, void, void>;
  /** `match` taken in steps (`Steps`): the same result, pausing wherever `meter` reaches `WORK_PER_TURN`. */
  matchSteps(i: Interaction, memo: Map<string, unknown> | undefined, meter: WorkMeter): Generator<void, MatchResult, void>;
}

/** Answers without tags are all alike: one of each (frozen) serves every interaction a filter judges. */
const NO_MATCH: MatchResult = Object.freeze({ matched: false, tags: Object.freeze([]) as unknown as string[] });
const MATCH_NO_TAGS: MatchResult = Object.freeze({ matched: true, tags: Object.freeze([]) as unknown as string[] });

export function compileDefinition(d: Definition, kind: FilterKind, resolve: Resolve): Evaluator {
  const test: Test = d.body ? compileExpr(d.body, kind, resolve) : () => false;
  const rules = d.tags.length > 0 ? compileTagRules(d.tags, kind, resolve) : undefined;
  const applyTags = rules ? rules.apply : () => {};
  const hasTags = d.tags.length > 0;
  // Compiled only once an interaction needs matching in steps (most filters never do).
  let bodySteps: Steps | undefined;
  const testSteps: Steps = d.body
    ? (s) => (bodySteps ??= compileExprSteps(d.body!, kind, resolve))(s)
    : function* () {
        return false;
      };
  const applyTagsSteps = rules ? rules.applySteps : function* (): Generator<void, void, void> {};
  const result = (out: TagOutput): MatchResult => {
    const r: MatchResult = { matched: true, tags: out.tags };
    if (out.tree) r.tagTree = out.tree;
    if (out.scores) r.categories = scoringWinners(out.scores);
    return r;
  };
  return {
    test,
    applyTags,
    testSteps,
    applyTagsSteps,
    match(i, memo, meter) {
      const s: Scope = { i, memo, meter };
      if (!test(s)) return NO_MATCH;
      if (!hasTags) return MATCH_NO_TAGS;
      const out: TagOutput = { tags: [], seen: new Set(), tree: undefined, scores: undefined };
      applyTags(s, out);
      return result(out);
    },
    *matchSteps(i, memo, meter) {
      const s = { i, memo, meter };
      if (!(yield* testSteps(s))) return NO_MATCH;
      if (!hasTags) return MATCH_NO_TAGS;
      const out: TagOutput = { tags: [], seen: new Set(), tree: undefined, scores: undefined };
      yield* applyTagsSteps(s, out);
      return result(out);
    },
  };
}

/**
 * The interaction as the index keeps it: the filter's tags written where analysis reads them
 * (`interaction.tags`, `interaction.tag_tree.*`, `interaction.ml.categories`).
 */
export function applyTags(i: Interaction, r: MatchResult): Interaction {
  if (r.tags.length === 0 && !r.categories?.length) return i;
  const inner = { ...((i.interaction as Record<string, unknown> | undefined) ?? {}) };
  const plain = r.tagTree ? r.tags.filter((t) => !Object.entries(r.tagTree!).some(([ns, names]) => names.some((n) => `${ns}.${n}` === t))) : r.tags;
  if (plain.length > 0) inner.tags = plain;
  if (r.tagTree) {
    const tree: Record<string, unknown> = {};
    for (const [path, names] of Object.entries(r.tagTree)) {
      const segs = path.split('.');
      let node = tree;
      for (const seg of segs.slice(0, -1)) node = (node[seg] ??= {}) as Record<string, unknown>;
      node[segs[segs.length - 1]!] = names;
    }
    inner.tag_tree = tree;
  }
  if (r.categories?.length) inner.ml = { ...((inner.ml as Record<string, unknown> | undefined) ?? {}), categories: r.categories };
  return { ...i, interaction: inner };
}
