import type { Expr } from './ast.ts';
import { compileCondition } from './conditions.ts';
import type { FilterKind } from './parser.ts';
import type { IncludedFilter, Resolve, Test } from './scope.ts';
import { mergeWordTests, singleWords } from './word-sets.ts';

/**
 * A boolean expression compiled to a test: `and` and `or` short-circuit, an `or`'s single-word keyword
 * conditions are merged (`word-sets.ts`), and `stream "<hash>"` includes another compiled definition.
 */
export function compileExpr(e: Expr, kind: FilterKind, resolve: Resolve): Test {
  switch (e.type) {
    case 'cond':
      return compileCondition(e, kind);
    case 'not': {
      const t = compileExpr(e.item, kind, resolve);
      return (s) => !t(s);
    }
    case 'and': {
      const ts = e.items.map((x) => compileExpr(x, kind, resolve));
      if (ts.length === 2) {
        const [x, y] = ts as [Test, Test];
        return (s) => x(s) && y(s);
      }
      return (s) => {
        for (const t of ts) if (!t(s)) return false;
        return true;
      };
    }
    case 'or': {
      const ts = mergeWordTests(e.items, kind).concat(e.items.filter((x) => !singleWords(x, kind)).map((x) => compileExpr(x, kind, resolve)));
      if (ts.length === 1) return ts[0]!;
      if (ts.length === 2) {
        const [x, y] = ts as [Test, Test];
        return (s) => x(s) || y(s);
      }
      return (s) => {
        for (const t of ts) if (t(s)) return true;
        return false;
      };
    }
    case 'stream': {
      // Bound on first use: the included definition is found by its hash (a content address).
      let bound: IncludedFilter | undefined = resolve(e.hash);
      return (s) => {
        bound ??= resolve(e.hash);
        return bound !== undefined && bound.test(s);
      };
    }
  }
}
