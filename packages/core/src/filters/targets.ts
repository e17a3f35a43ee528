import type { Definition, Expr, FilterKind } from './ast.ts';
import { MODELLED_NAMESPACES, OPEN_NAMESPACE, TAG_TREE_PREFIX, TARGETS } from './target-table.ts';

/**
 * Which targets a filter may name. The modelled namespaces (`fb.*`, `interaction.*`, `links.*`) hold only
 * the rows of the target table; any well-formed `li.*` path is accepted; other namespaces of the core
 * language (`twitter.*`, `language.*`, ...) are accepted as written for `/validate` and `/compile`
 * compatibility, but not in a query filter.
 */
const PATH = /^[\p{L}\d_]+(\.[\p{L}\d_]+)+$/u;
const TAG_TREE = /^interaction\.tag_tree(\.[\p{L}\d_-]+)+$/u;

/** Why a target cannot be used here, or null when it can. */
export function targetProblem(target: string, kind: FilterKind): string | null {
  if (target.startsWith(TAG_TREE_PREFIX)) {
    // Tag namespaces may hold hyphens, so the tree's tail follows the namespace rule, not the path rule.
    if (!TAG_TREE.test(target)) return `The target ${target} does not exist`;
    return kind === 'query' ? null : `The target ${target} can only be used in a query filter`;
  }
  if (!PATH.test(target)) return `The target ${target} does not exist`;
  const ns = target.slice(0, target.indexOf('.'));
  const row = TARGETS.get(target);
  if (MODELLED_NAMESPACES.has(ns) && !row) return `The target ${target} does not exist`;
  // Tags, scores and the topic graph are written for analysis: a recording's filter cannot read them.
  if (kind === 'definition' && row && !row.filter) return `The target ${target} can only be used in a query filter`;
  if (kind === 'query' && !MODELLED_NAMESPACES.has(ns) && ns !== OPEN_NAMESPACE) return `The target ${target} does not exist`;
  if (kind === 'query' && row && !row.query) return `The target ${target} cannot be used in a query filter`;
  return null;
}

/**
 * The topic-data product filters the social and professional networks only: a recording's definition
 * may not name the core language's other sources (`twitter.*`, ...). Returns the first such target.
 */
export function foreignToInsight(d: Definition): string | undefined {
  let found: string | undefined;
  const walk = (e: Expr): void => {
    if (found) return;
    if (e.type === 'cond') {
      const ns = e.target.slice(0, e.target.indexOf('.'));
      if (!MODELLED_NAMESPACES.has(ns) && ns !== OPEN_NAMESPACE) found = e.target;
    } else if (e.type === 'not') walk(e.item);
    else if (e.type === 'and' || e.type === 'or') e.items.forEach(walk);
  };
  for (const r of d.tags) if (r.type !== 'include') walk(r.body);
  if (d.body) walk(d.body);
  return found;
}
