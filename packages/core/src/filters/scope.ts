import type { WorkMeter } from './linear-regex.ts';
import type { Interaction } from './target-reader.ts';

/*
 * What the compiled pieces of a definition share: the scope one interaction is tested in, a test, the
 * tag output rules write to, and what an included definition (`stream`, `tags` by hash) offers.
 */

/** Per-interaction scratch space: tokenized and lower-cased values shared by every condition. */
export interface Scope {
  i: Interaction;
  memo: Map<string, unknown> | undefined;
  /** Where every test adds what it cost (`WorkMeter`), if anyone asks. */
  meter?: WorkMeter | undefined;
}

/** A compiled condition or expression: does the interaction in scope match? */
export type Test = (s: Scope) => boolean;

/**
 * The same test taken in steps (`expression-steps.ts`): it pauses (yields) whenever the scope's meter
 * has reached `WORK_PER_TURN`, inside a pattern's match too, and whoever drives it gives the event loop a
 * turn and sets the meter back to 0 before going on. Its answer is the test's.
 */
export type Steps = (s: Scope & { meter: WorkMeter }) => Generator<void, boolean, void>;

/** What an evaluator needs of another compiled definition (`stream` and `tags` inclusion). */
export interface IncludedFilter {
  test(s: Scope): boolean;
  applyTags(s: Scope, out: TagOutput): void;
  /** `test` and `applyTags` taken in steps (`Steps`). */
  testSteps: Steps;
  applyTagsSteps(s: Scope & { meter: WorkMeter }, out: TagOutput): Generator<void, void, void>;
  tagRuleCount: number;
  /** Instructions of its automata, its inclusions' counted each time they are named (`limits.ts`). */
  regexInstructions: number;
}
export type Resolve = (hash: string) => IncludedFilter | undefined;

/** What the tag rules give one interaction, built up rule by rule. */
export interface TagOutput {
  tags: string[];
  /** What `tags` and the tree already hold, so a rule that fires twice adds nothing (kept in a set:
   * a classifier may give hundreds of tags to one interaction). */
  seen: Set<string>;
  tree: Record<string, string[]> | undefined;
  scores: Map<string, Map<string, number>> | undefined;
}
