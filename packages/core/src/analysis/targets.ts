/**
 * Which targets analysis may count (filter-language.md §3.1, the AN and CH columns). Child analyses
 * need low-cardinality targets (fewer than 50 values), so only those may nest. The professional
 * network's names are not settled (§3.2), so any `li.*` path is accepted, as the filter language does.
 */
const AUTHOR = ['age', 'gender', 'country', 'country_code', 'region', 'country_region', 'type'];
const STORY = ['hashtags', 'language', 'link', 'link_title', 'media_type', 'sentiment', 'topic_ids', 'topics.name', 'topics.category', 'topics.category_name'];

export const ANALYSIS_TARGETS: ReadonlySet<string> = new Set([
  ...AUTHOR.map((a) => `fb.author.${a}`),
  ...AUTHOR.map((a) => `fb.parent.author.${a}`),
  ...STORY.map((s) => `fb.${s}`),
  ...STORY.map((s) => `fb.parent.${s}`),
  'fb.type',
  'fb.parent.interface',
  'fb.topic_graph',
  'fb.parent.topic_graph',
  'interaction.hashtags',
  'interaction.media_type',
  'interaction.subtype',
  'interaction.tags',
  'interaction.ml.categories',
  'links.url',
  'links.normalized_url',
  'links.domain',
  'links.title',
  'links.code',
]);

export const CHILD_TARGETS: ReadonlySet<string> = new Set([
  'fb.author.age',
  'fb.author.gender',
  'fb.author.type',
  'fb.parent.author.age',
  'fb.parent.author.gender',
  'fb.parent.author.type',
  'fb.media_type',
  'fb.parent.media_type',
  'fb.type',
  'fb.sentiment',
  'fb.parent.sentiment',
  'fb.parent.interface',
  'interaction.subtype',
  'interaction.media_type',
  'interaction.tags',
  'interaction.ml.categories',
]);

const PATH = /^[a-z0-9_]+(\.[\p{L}\d_-]+)+$/u;

const isOpen = (target: string): boolean => target.startsWith('li.') || target.startsWith('interaction.tag_tree.');

/** Why a target cannot be analysed, or null when it can. */
export function analysisTargetProblem(target: string, asChild: boolean): string | null {
  if (!PATH.test(target)) return `The target ${target} does not exist`;
  if (isOpen(target)) return null;
  if (!ANALYSIS_TARGETS.has(target)) return `The target ${target} cannot be analysed (it is not an analysis target)`;
  if (asChild && !CHILD_TARGETS.has(target)) return `The target ${target} has too many values to be a child analysis target`;
  return null;
}

/** Queries that analyse user skills have a lower nested threshold product (seed §8.2). */
export const isSkillsTarget = (target: string): boolean => /(^|\.)skills?(\.|$)/.test(target);
