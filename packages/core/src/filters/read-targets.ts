import type { Expr } from './ast.ts';
import type { CompiledFilter } from './compiled-filter.ts';

/**
 * Whether a filter's verdict (matched or not) depends on no target but `targets`: its body names no
 * other target and includes no other definition (whose body could read anything). Tag rules are left
 * out: they decide a match's tags, never whether it matched. A filter without a body matches nothing
 * and reads nothing. Lets a caller judge the filter on an interaction holding only those targets and
 * apply the verdict to every interaction that holds the same values there.
 */
export function verdictReadsOnly(filter: Pick<CompiledFilter, 'definition'>, targets: ReadonlySet<string>): boolean {
  const walk = (e: Expr): boolean => {
    switch (e.type) {
      case 'cond':
        return targets.has(e.target);
      case 'not':
        return walk(e.item);
      case 'and':
      case 'or':
        return e.items.every(walk);
      default:
        return false;
    }
  };
  return filter.definition.body ? walk(filter.definition.body) : true;
}
