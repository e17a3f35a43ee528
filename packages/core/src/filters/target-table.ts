/**
 * The social network's targets (docs/filters.md#targets), one row each, with where each may be used.
 * Filters (`targets.ts`: which targets a definition or a query filter may name) and analysis
 * (`analysis/targets.ts`: which targets may be counted, and which nested) both read this one table, so a
 * target is added or re-flagged in one place.
 */
export interface TargetUses {
  /** IF: usable in an interaction (recording) filter. */
  readonly filter: boolean;
  /** QF: usable in an analysis query filter. */
  readonly query: boolean;
  /** AN: a `freqDist` target. */
  readonly analysis: boolean;
  /** CH: low cardinality (fewer than 50 values), so it may be a nested `child` analysis. */
  readonly child: boolean;
}

/** A row's flags as the spec's table writes them (the combinations it uses; a new one is added here). */
type Flags = 'IF' | 'AN' | 'IF QF' | 'IF QF AN' | 'IF QF AN CH' | 'QF AN CH';

const uses = (flags: Flags): TargetUses => {
  const f = new Set(flags.split(' '));
  return { filter: f.has('IF'), query: f.has('QF'), analysis: f.has('AN'), child: f.has('CH') };
};

/** The author of a story (`fb.author.*`) or of the story engaged with (`fb.parent.author.*`). */
const AUTHOR: Record<string, Flags> = {
  age: 'IF QF AN CH',
  gender: 'IF QF AN CH',
  type: 'IF QF AN CH',
  country: 'IF QF AN',
  country_code: 'IF QF AN',
  region: 'IF QF AN',
  country_region: 'IF QF AN',
};

/** A story (`fb.*`) or the story engaged with (`fb.parent.*`). */
const STORY: Record<string, Flags> = {
  content: 'IF QF',
  hashtags: 'IF QF AN',
  language: 'IF QF AN',
  link: 'IF QF AN',
  link_title: 'IF QF AN',
  media_type: 'IF QF AN CH',
  sentiment: 'IF QF AN CH',
  topic_ids: 'IF QF AN',
  'topics.name': 'IF QF AN',
  'topics.category': 'IF QF AN',
  'topics.category_name': 'IF QF AN',
  // Interaction-filter only.
  ...Object.fromEntries(
    ['about', 'company_overview', 'location_city', 'location_street', 'mission', 'products', 'release_date', 'username', 'website'].map((t) => [`topics.${t}`, 'IF' as Flags]),
  ),
};

const ROWS: Record<string, Flags> = {
  ...prefixed('fb.author.', AUTHOR),
  ...prefixed('fb.parent.author.', AUTHOR),
  ...prefixed('fb.', STORY),
  ...prefixed('fb.parent.', STORY),
  'fb.all.content': 'IF QF',
  'fb.type': 'IF QF AN CH',
  'fb.parent.interface': 'IF QF AN CH',
  // Sampling is a filter's business only.
  'fb.sample': 'IF',
  'interaction.sample': 'IF',
  // Written by the filter itself (tags, scores) or computed for analysis: never in a recording's filter.
  'fb.topic_graph': 'AN',
  'fb.parent.topic_graph': 'AN',
  'interaction.tags': 'QF AN CH',
  'interaction.ml.categories': 'QF AN CH',
  'interaction.content': 'IF QF',
  'interaction.raw_content': 'IF QF',
  'interaction.hashtags': 'IF QF AN',
  'interaction.media_type': 'IF QF AN CH',
  'interaction.subtype': 'IF QF AN CH',
  'interaction.id': 'IF QF',
  'interaction.author.username': 'IF QF',
  'interaction.author.name': 'IF QF',
  'interaction.author.id': 'IF QF',
  'interaction.source': 'IF QF',
  'interaction.title': 'IF QF',
  'interaction.geo': 'IF QF',
  'interaction.type': 'IF QF',
  'interaction.created_at': 'IF QF',
  'links.url': 'IF QF AN',
  'links.normalized_url': 'IF QF AN',
  'links.domain': 'IF QF AN',
  'links.title': 'IF QF AN',
  'links.code': 'IF QF AN',
};

function prefixed(prefix: string, rows: Record<string, Flags>): Record<string, Flags> {
  return Object.fromEntries(Object.entries(rows).map(([name, flags]) => [prefix + name, flags]));
}

/** Every modelled target and where it may be used. */
export const TARGETS: ReadonlyMap<string, TargetUses> = new Map(Object.entries(ROWS).map(([target, flags]) => [target, uses(flags)]));

/** The namespaces this table covers whole: a path in them that is not a row does not exist. */
export const MODELLED_NAMESPACES: ReadonlySet<string> = new Set(['fb', 'interaction', 'links']);

/**
 * The professional network's names are not settled (§3.2, gap 10): any well-formed path under it is
 * accepted, by filters and analysis alike.
 */
export const OPEN_NAMESPACE = 'li';

/** Namespaced tags (`interaction.tag_tree.<namespace…>`): named by the filter's own tag rules, so open. */
export const TAG_TREE_PREFIX = 'interaction.tag_tree.';
