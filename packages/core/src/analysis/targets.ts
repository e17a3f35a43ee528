import { TARGET_PATH } from '../contract/analysis-request.ts';
import { OPEN_NAMESPACE, TAG_TREE_PREFIX, TARGETS } from '../filters/target-table.ts';

/**
 * Which targets analysis may count: the target table's AN rows (docs/filters.md#targets); a nested
 * `child` analysis needs a low-cardinality one (fewer than 50 values), its CH rows. The professional
 * network's names are not settled (§3.2), so any `li.*` path is accepted, as the filter language does; so
 * are namespaced tags.
 */
const isOpen = (target: string): boolean => target.startsWith(`${OPEN_NAMESPACE}.`) || target.startsWith(TAG_TREE_PREFIX);

/** Why a target cannot be analysed, or null when it can. */
export function analysisTargetProblem(target: string, asChild: boolean): string | null {
  if (!TARGET_PATH.test(target)) return `The target ${target} does not exist`;
  if (isOpen(target)) return null;
  const row = TARGETS.get(target);
  if (!row?.analysis) return `The target ${target} cannot be analysed (it is not an analysis target)`;
  if (asChild && !row.child) return `The target ${target} has too many values to be a child analysis target`;
  return null;
}

export { isSkillsTarget } from '../contract/analysis-request.ts';
