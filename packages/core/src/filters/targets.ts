import type { Definition, Expr, FilterKind } from './ast.ts';

/**
 * The targets this platform models (filter-language.md §3.1): the social network's `fb.*`, the
 * interaction and link namespaces. The professional network's names are not settled (§3.2, gap 10), so
 * any well-formed `li.*` path is accepted; other namespaces of the core language (`twitter.*`,
 * `language.*`, ...) are accepted as written for `/validate` and `/compile` compatibility.
 */
const AUTHOR = ['age', 'country', 'country_code', 'gender', 'region', 'country_region', 'type'];
const STORY = ['content', 'hashtags', 'language', 'link', 'link_title', 'media_type', 'sentiment', 'topic_ids'];
const TOPICS = ['name', 'category', 'category_name', 'about', 'company_overview', 'location_city', 'location_street', 'mission', 'products', 'release_date', 'username', 'website'];

/** Targets an interaction filter may not use: they are written by the filter itself (tags, scores). */
const ANALYSIS_ONLY = new Set(['interaction.tags', 'interaction.ml.categories', 'fb.topic_graph', 'fb.parent.topic_graph']);

export const KNOWN_TARGETS: ReadonlySet<string> = new Set([
  ...AUTHOR.map((a) => `fb.author.${a}`),
  ...AUTHOR.map((a) => `fb.parent.author.${a}`),
  ...STORY.map((s) => `fb.${s}`),
  ...STORY.map((s) => `fb.parent.${s}`),
  ...TOPICS.map((t) => `fb.topics.${t}`),
  ...TOPICS.map((t) => `fb.parent.topics.${t}`),
  'fb.all.content',
  'fb.type',
  'fb.parent.interface',
  'fb.sample',
  'fb.topic_graph',
  'fb.parent.topic_graph',
  'interaction.sample',
  'interaction.content',
  'interaction.raw_content',
  'interaction.hashtags',
  'interaction.media_type',
  'interaction.subtype',
  'interaction.tags',
  'interaction.ml.categories',
  'interaction.id',
  'interaction.author.username',
  'interaction.author.name',
  'interaction.author.id',
  'interaction.source',
  'interaction.title',
  'interaction.geo',
  'interaction.type',
  'interaction.created_at',
  'links.url',
  'links.normalized_url',
  'links.domain',
  'links.title',
  'links.code',
]);

/** Targets an analysis query filter may not use (filter-language.md §3.1, QF column ✗ or –). */
const NOT_IN_QUERIES = new Set([
  ...['about', 'company_overview', 'location_city', 'location_street', 'mission', 'products', 'release_date', 'username', 'website'].flatMap((t) => [
    `fb.topics.${t}`,
    `fb.parent.topics.${t}`,
  ]),
  'fb.sample',
  'interaction.sample',
  'fb.topic_graph',
  'fb.parent.topic_graph',
]);

const MODELLED = new Set(['fb', 'interaction', 'links']);
const PATH = /^[\p{L}\d_]+(\.[\p{L}\d_]+)+$/u;
const TAG_TREE = /^interaction\.tag_tree(\.[\p{L}\d_-]+)+$/u;

/** Why a target cannot be used here, or null when it can. */
export function targetProblem(target: string, kind: FilterKind): string | null {
  if (target.startsWith('interaction.tag_tree.')) {
    // Tag namespaces may hold hyphens, so the tree's tail follows the namespace rule, not the path rule.
    if (!TAG_TREE.test(target)) return `The target ${target} does not exist`;
    return kind === 'query' ? null : `The target ${target} can only be used in a query filter`;
  }
  if (!PATH.test(target)) return `The target ${target} does not exist`;
  const ns = target.slice(0, target.indexOf('.'));
  if (MODELLED.has(ns) && !KNOWN_TARGETS.has(target)) return `The target ${target} does not exist`;
  if (kind === 'definition' && ANALYSIS_ONLY.has(target)) return `The target ${target} can only be used in a query filter`;
  if (kind === 'query' && !MODELLED.has(ns) && ns !== 'li') return `The target ${target} does not exist`;
  if (kind === 'query' && NOT_IN_QUERIES.has(target)) return `The target ${target} cannot be used in a query filter`;
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
      if (!MODELLED.has(ns) && ns !== 'li') found = e.target;
    } else if (e.type === 'not') walk(e.item);
    else if (e.type === 'and' || e.type === 'or') e.items.forEach(walk);
  };
  for (const r of d.tags) if (r.type !== 'include') walk(r.body);
  if (d.body) walk(d.body);
  return found;
}
