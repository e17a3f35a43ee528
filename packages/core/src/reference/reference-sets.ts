/**
 * The professional network's reference data (docs/clients.md#reference-data): the sets of values its member
 * dimensions take, as `GET /insight/linkedin/reference[/{slug}]` lists them. The sets, their names and
 * order are the ones the original served in 1.5 (15 sets; 1.6 added a 16th). The values are this
 * platform's own vocabulary: the synthetic firehose draws its LinkedIn members from these very lists
 * (`firehose/synthetic-interactions.ts`), so every value a client reads here can be found by a query filter
 * on the set's target. Where the original's values were recorded (seniorities, functions) they are used.
 */
export interface ReferenceValue {
  readonly title: string;
  readonly value: string;
}

export interface ReferenceSet {
  /** As the original wrote it: with a leading slash (`/seniorities`); the path names it without. */
  readonly slug: string;
  readonly name: string;
  readonly description: string;
  /** The filter-language target whose values these are; `null` for sets no interaction carries. */
  readonly target: string | null;
  readonly values: readonly ReferenceValue[];
}

/** Values as the original spelled them: lowercase `value`, title-case `title` unless a title is given. */
const titled = (entries: readonly (string | readonly [string, string])[]): ReferenceValue[] =>
  entries.map((e) =>
    typeof e === 'string' ? { value: e, title: e.replace(/(^|[\s-])(\p{Ll})/gu, (_, sep: string, c: string) => sep + c.toUpperCase()).replace(/\bAnd\b/g, 'and') } : { value: e[0], title: e[1] },
  );

/** Recorded (docs/clients.md#reference-data). */
export const LI_SENIORITIES = titled([['cxo', 'CXO'], 'director', 'entry', 'manager', 'owner', 'partner', 'senior', 'training', 'unpaid', ['vp', 'VP']]);

/** Recorded (docs/reference-data.md#the-sets, the .NET client's mock). */
export const LI_FUNCTIONS = titled([
  'accounting', 'administrative', 'arts and design', 'business development', 'community and social services', 'consulting',
  'education', 'engineering', 'entrepreneurship', 'finance', 'healthcare services', 'human resources', 'information technology',
  'legal', 'marketing', 'media and communication', 'military and protective services', 'operations', 'product management',
  'program and project management', 'purchasing', 'quality assurance', 'real estate', 'research', 'sales', 'support',
]);

/** Employer industry sectors; every sector has at least one industry below, so the firehose shows each. */
export const LI_SECTORS = titled([['high-tech', 'High-Tech'], 'finance', 'legal', 'healthcare', 'education', 'manufacturing', 'retail', 'media']);

/** Employer industries, each with its sector: the firehose draws an industry and writes its sector beside it. */
export const LI_INDUSTRY_SECTORS: readonly (readonly [industry: string, sector: string])[] = [
  ['internet', 'high-tech'],
  ['computer software', 'high-tech'],
  ['telecommunications', 'high-tech'],
  ['banking', 'finance'],
  ['financial services', 'finance'],
  ['insurance', 'finance'],
  ['law practice', 'legal'],
  ['legal services', 'legal'],
  ['hospital and health care', 'healthcare'],
  ['pharmaceuticals', 'healthcare'],
  ['higher education', 'education'],
  ['primary and secondary education', 'education'],
  ['automotive', 'manufacturing'],
  ['machinery', 'manufacturing'],
  ['retail', 'retail'],
  ['consumer goods', 'retail'],
  ['marketing and advertising', 'media'],
  ['broadcast media', 'media'],
];
export const LI_INDUSTRIES = titled(LI_INDUSTRY_SECTORS.map(([industry]) => industry));

export const LI_COMPANY_SIZES = titled([
  ['1', 'Self-employed'], ['2-10', '2-10 employees'], ['11-50', '11-50 employees'], ['51-200', '51-200 employees'],
  ['201-500', '201-500 employees'], ['501-1000', '501-1,000 employees'], ['1001-5000', '1,001-5,000 employees'],
  ['5001-10000', '5,001-10,000 employees'], ['10001+', '10,001+ employees'],
]);

/** Fields of study, each with its group. */
export const LI_FIELD_GROUPS_OF: readonly (readonly [field: string, group: string])[] = [
  ['computer science', 'engineering and technology'],
  ['electrical engineering', 'engineering and technology'],
  ['mechanical engineering', 'engineering and technology'],
  ['business administration', 'business'],
  ['accounting', 'business'],
  ['economics', 'social sciences'],
  ['psychology', 'social sciences'],
  ['law', 'law'],
  ['medicine', 'health'],
  ['nursing', 'health'],
  ['history', 'arts and humanities'],
  ['english literature', 'arts and humanities'],
  ['mathematics', 'natural sciences'],
  ['biology', 'natural sciences'],
];
export const LI_FIELD_NAMES = titled(LI_FIELD_GROUPS_OF.map(([field]) => field));
export const LI_FIELD_GROUPS = titled([...new Set(LI_FIELD_GROUPS_OF.map(([, group]) => group))]);

export const LI_DEGREE_GROUPS = titled(['high school', 'associate', 'bachelors', 'masters', 'doctorate']);
export const LI_EDUCATION_STATUSES = titled(['student', 'graduate']);

/** The firehose's countries (lowercase, as the professional network writes them) and their minor continent. */
export const LI_COUNTRY_CONTINENTS: readonly (readonly [country: string, continent: string])[] = [
  ['united states', 'northern america'],
  ['canada', 'northern america'],
  ['mexico', 'central america'],
  ['brazil', 'south america'],
  ['united kingdom', 'northern europe'],
  ['germany', 'western europe'],
  ['france', 'western europe'],
  ['spain', 'southern europe'],
  ['italy', 'southern europe'],
  ['turkey', 'western asia'],
  ['india', 'southern asia'],
  ['japan', 'eastern asia'],
  ['australia', 'australia and new zealand'],
  ['nigeria', 'western africa'],
];
export const LI_COUNTRIES = titled(LI_COUNTRY_CONTINENTS.map(([country]) => country));
export const LI_MINOR_CONTINENTS = titled([...new Set(LI_COUNTRY_CONTINENTS.map(([, continent]) => continent))]);

export const LI_GENDERS = titled(['female', 'male', 'unknown']);
export const LI_AGES = titled(['18-24', '25-34', '35-54', ['55+', '55+'], 'unknown']);

const set = (slug: string, name: string, target: string | null, values: readonly ReferenceValue[]): ReferenceSet => ({ slug: `/${slug}`, name, description: '', target, values });
const MEMBER = 'li.user.member.';

const DIMENSIONS: readonly ReferenceSet[] = [
  set('functions', 'User member functions', `${MEMBER}functions`, LI_FUNCTIONS),
  set('seniorities', 'User member seniorities', `${MEMBER}seniority`, LI_SENIORITIES),
  set('sectors', 'User member employer industry sectors', `${MEMBER}employer_industry_sectors`, LI_SECTORS),
  set('company_sizes', 'User member employer sizes', `${MEMBER}employer_size`, LI_COMPANY_SIZES),
  set('field_names', 'User member field groups names', `${MEMBER}field_names`, LI_FIELD_NAMES),
  set('degree_groups', 'User member degree groups', `${MEMBER}degree_groups`, LI_DEGREE_GROUPS),
  set('countries', 'User member country', `${MEMBER}country`, LI_COUNTRIES),
  set('genders', 'User member gender', `${MEMBER}gender`, LI_GENDERS),
  set('ages', 'User member age', `${MEMBER}age`, LI_AGES),
  set('minor_continents', 'User member minor continent', `${MEMBER}minor_continent`, LI_MINOR_CONTINENTS),
  set('field_groups', 'User member field groups', `${MEMBER}field_groups`, LI_FIELD_GROUPS),
  // An account's own audience segments on the original; this platform defines none.
  set('custom_segments', 'User member custom segments', null, []),
  set('education_statuses', 'User member education status', `${MEMBER}education_status`, LI_EDUCATION_STATUSES),
  // The recorded name repeats the sectors' one; kept as recorded, since clients show it.
  set('industries', 'User member employer industry sectors', `${MEMBER}employer_industry_names`, LI_INDUSTRIES),
];

/** Every value of every set above, each once per set it belongs to ("List all reference data items"). */
const ALL_VALUES = set('demographic_values', 'List all reference data items', null, DIMENSIONS.flatMap((s) => s.values));

export const LINKEDIN_REFERENCE_SETS: readonly ReferenceSet[] = [...DIMENSIONS, ALL_VALUES];

const BY_SERVICE: ReadonlyMap<string, readonly ReferenceSet[]> = new Map([['linkedin', LINKEDIN_REFERENCE_SETS]]);

/** A service's reference sets: only the professional network has any. */
export const referenceSetsOf = (service: string): readonly ReferenceSet[] => BY_SERVICE.get(service) ?? [];

/** A set by its slug, with or without the leading slash. */
export function referenceSet(service: string, slug: string): ReferenceSet | undefined {
  const wanted = slug.startsWith('/') ? slug : `/${slug}`;
  return referenceSetsOf(service).find((s) => s.slug === wanted);
}

/** The set a strategy's audience dimension names (`sectors`, `industries`, ...), when it has a target. */
export const audienceDimension = (service: string, name: string): ReferenceSet | undefined => {
  const s = referenceSet(service, name);
  return s && s.target !== null ? s : undefined;
};
