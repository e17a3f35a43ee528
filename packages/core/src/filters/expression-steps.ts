import type { Expr } from './ast.ts';
import { compileConditionSteps, paced } from './condition-steps.ts';
import type { FilterKind } from './parser.ts';
import type { IncludedFilter, Resolve, Steps } from './scope.ts';
import { mergeWordTests, singleWords } from './word-sets.ts';

/**
 * A boolean expression taken in steps (`Steps`): `compileExpr`'s twin, member for member in the same
 * order (the same short-circuits, the same merged word sets, the same inclusions), so it answers what
 * the test answers and charges the meter what the test charges; it only pauses where the meter is full.
 */
export function compileExprSteps(e: Expr, kind: FilterKind, resolve: Resolve): Steps {
  switch (e.type) {
    case 'cond':
      return compileConditionSteps(e, kind);
    case 'not': {
      const t = compileExprSteps(e.item, kind, resolve);
      return function* (s) {
        return !(yield* t(s));
      };
    }
    case 'and': {
      const ts = e.items.map((x) => compileExprSteps(x, kind, resolve));
      return function* (s) {
        for (const t of ts) if (!(yield* t(s))) return false;
        return true;
      };
    }
    case 'or': {
      const ts = mergeWordTests(e.items, kind)
        .map(paced)
        .concat(e.items.filter((x) => !singleWords(x, kind)).map((x) => compileExprSteps(x, kind, resolve)));
      return function* (s) {
        for (const t of ts) if (yield* t(s)) return true;
        return false;
      };
    }
    case 'stream': {
      let bound: IncludedFilter | undefined = resolve(e.hash);
      return function* (s) {
        bound ??= resolve(e.hash);
        return bound !== undefined && (yield* bound.testSteps(s));
      };
    }
  }
}
