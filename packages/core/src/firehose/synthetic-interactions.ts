import type { Interaction } from '../filters/index.ts';
import {
  LI_AGES as LI_AGE_VALUES,
  LI_COMPANY_SIZES,
  LI_COUNTRY_CONTINENTS,
  LI_DEGREE_GROUPS,
  LI_EDUCATION_STATUSES,
  LI_FIELD_GROUPS_OF,
  LI_FUNCTIONS,
  LI_INDUSTRY_SECTORS,
  LI_SENIORITIES,
  type ReferenceValue,
} from '../reference/reference-sets.ts';
import { SeededRandom, Weighted, hexOfWords, mixSeed } from './seeded-random.ts';

/**
 * Synthetic interactions with the shapes and rough distributions of docs/filters.md#targets: authors with
 * stable demographics (a few very active, most occasional), stories and engagements on them, topics with
 * categories, hashtags, links, sentiment and language. Every value follows from (seed, author) or
 * (seed, minute, n), so the same seed always yields the same firehose.
 */
export type FirehoseService = 'facebook' | 'linkedin';
export const FIREHOSE_SERVICES: readonly FirehoseService[] = ['facebook', 'linkedin'];

const AUTHORS = 20_000;

const AGES = new Weighted([
  ['18-24', 20],
  ['25-34', 28],
  ['35-44', 20],
  ['45-54', 14],
  ['55-64', 9],
  ['65+', 5],
  ['unknown', 4],
] as const);
const GENDERS = new Weighted([
  ['female', 49],
  ['male', 47],
  ['unknown', 4],
] as const);
/** Country, ISO code, regions, language. */
const COUNTRIES = new Weighted<readonly [string, string, readonly string[], string]>([
  [['United States', 'US', ['California', 'Texas', 'New York', 'Florida', 'Illinois'], 'en'], 30],
  [['United Kingdom', 'GB', ['England', 'Scotland', 'Wales'], 'en'], 10],
  [['India', 'IN', ['Maharashtra', 'Karnataka', 'Delhi'], 'en'], 10],
  [['Brazil', 'BR', ['São Paulo', 'Rio de Janeiro', 'Pará'], 'pt'], 8],
  [['Germany', 'DE', ['Bavaria', 'Berlin', 'Hesse'], 'de'], 6],
  [['France', 'FR', ['Île-de-France', 'Provence'], 'fr'], 5],
  [['Canada', 'CA', ['Ontario', 'Quebec', 'British Columbia'], 'en'], 5],
  [['Mexico', 'MX', ['Jalisco', 'Mexico City'], 'es'], 5],
  [['Spain', 'ES', ['Madrid', 'Catalonia'], 'es'], 4],
  [['Italy', 'IT', ['Lazio', 'Lombardy'], 'it'], 4],
  [['Japan', 'JP', ['Tokyo', 'Osaka'], 'ja'], 4],
  [['Australia', 'AU', ['New South Wales', 'Victoria'], 'en'], 4],
  [['Turkey', 'TR', ['Istanbul', 'Ankara'], 'tr'], 3],
  [['Nigeria', 'NG', ['Lagos', 'Abuja'], 'en'], 2],
]);
const TYPES = new Weighted([
  ['story', 35],
  ['like', 40],
  ['comment', 20],
  ['reshare', 5],
] as const);
const MEDIA = new Weighted([
  ['post', 40],
  ['photo', 25],
  ['link', 20],
  ['video', 10],
  ['note', 5],
] as const);
const SENTIMENT = new Weighted([
  ['positive', 40],
  ['neutral', 40],
  ['negative', 20],
] as const);
/** Topics with their categories, most talked about first (weights fall off like a power law). */
const TOPIC_LIST: readonly [string, string, string][] = [
  ['Coffee', 'Food & Beverage', 'coffee'],
  ['BMW', 'Cars', 'car'],
  ['Starbucks', 'Restaurant/Cafe', 'latte'],
  ['Football', 'Sport', 'match'],
  ['Star Wars', 'Movie', 'film'],
  ['Audi', 'Cars', 'car'],
  ['Nike', 'Sports Company', 'trainers'],
  ['Captain America', 'Movie character', 'film'],
  ['Tesla', 'Automotive', 'car'],
  ['Coca-Cola', 'Food & Beverage', 'drink'],
  ['Apple', 'Computers/Technology', 'phone'],
  ['Samsung', 'Electronics', 'phone'],
  ['Yoga', 'Interest', 'class'],
  ['Pizza', 'Food', 'pizza'],
  ['Taylor Swift', 'Musician/Band', 'album'],
  ['NBA', 'Sports League', 'game'],
  ['Netflix', 'Media/News Company', 'series'],
  ['Lego', 'Toys', 'set'],
  ['Paris', 'City', 'trip'],
  ['Climate change', 'Cause', 'news'],
];
const ADJECTIVES = ['great', 'terrible', 'amazing', 'new', 'favourite', 'best', 'awful', 'lovely', 'big', 'quiet'];
const OPENERS = ['Just tried the', 'Loving the', 'Not sure about the', 'Who else saw the', 'Thinking about the', 'Cannot wait for the'];
const DOMAINS = ['example.com', 'news.example.org', 'blog.example.net', 'shop.example.com', 'video.example.tv'];

/** Member ages: the reference set's values (`reference/reference-sets.ts`) with the firehose's weights. */
const LI_AGE_WEIGHTS: Record<string, number> = { '18-24': 15, '25-34': 35, '35-54': 40, '55+': 8, unknown: 2 };
const LI_AGES = new Weighted(LI_AGE_VALUES.map((a) => [a.value, LI_AGE_WEIGHTS[a.value] ?? 1] as const));
const values = (set: readonly ReferenceValue[]): string[] => set.map((v) => v.value);
const LI_SENIORITY_VALUES = values(LI_SENIORITIES);
const LI_FUNCTION_VALUES = values(LI_FUNCTIONS);
const LI_SIZE_VALUES = values(LI_COMPANY_SIZES);
const LI_DEGREE_VALUES = values(LI_DEGREE_GROUPS);
const LI_STATUS_VALUES = values(LI_EDUCATION_STATUSES);
const LI_CONTINENT_OF = new Map(LI_COUNTRY_CONTINENTS);
const LI_METROS = ['san francisco bay area', 'greater new york city area', 'greater london', 'greater chicago area', 'bengaluru area', 'greater paris metropolitan region'];

/**
 * A topic with what every interaction about it repeats, worked out once: the hashtag, the topic object
 * and id the firehose writes. Half a million interactions a simulated week each spelled these afresh,
 * and their garbage was a large part of a simulation's time.
 */
interface Topic {
  name: string;
  /** The word the sentence and link path use ("coffee"). */
  word: string;
  hashtag: string;
  /** `{ name, category }`, shared by every interaction about the topic (frozen: no reader may change it). */
  object: Readonly<{ name: string; category: string }>;
  id: number;
}

const TOPIC_FACTS: readonly Topic[] = TOPIC_LIST.map(([name, category, word], k) => ({
  name,
  word,
  hashtag: name.toLowerCase().replace(/[^a-z0-9]/g, ''),
  object: Object.freeze({ name, category }),
  id: 100_000_000 + k,
}));
const TOPICS = new Weighted(TOPIC_FACTS.map((t, k) => [t, 1 / (k + 1)] as const));

interface Author {
  /** The author's index among the seed's authors. */
  k: number;
  id: string;
  age: string;
  gender: string;
  country: readonly [string, string, readonly string[], string];
  region: string;
  type: 'user' | 'page';
  /** The author's demographics as an interaction carries them, shared by all of its interactions (frozen). */
  demographics: Readonly<Record<string, unknown>>;
  /** `interaction.author` (`{ id }`), shared likewise. */
  ref: Readonly<{ id: string }>;
  /** The professional network's profile facts, worked out the first time the member acts there. */
  education?: Readonly<Record<string, unknown>>;
}

function authorOf(seed: number, k: number): Author {
  const rng = new SeededRandom(mixSeed(seed, 0xa17, k));
  const country = COUNTRIES.draw(rng);
  const id = `${(seed >>> 0).toString(16)}${k.toString(16).padStart(6, '0')}`;
  const age = AGES.draw(rng);
  const gender = GENDERS.draw(rng);
  const region = rng.pick(country[2]);
  const type = rng.chance(0.05) ? 'page' : 'user';
  const demographics = Object.freeze({ id, age, gender, country: country[0], country_code: country[1], region, type });
  return { k, id, age, gender, country, region, type, demographics, ref: Object.freeze({ id }) };
}

/** Authors of the seeds in use (an author is a pure function of seed and index, so caching is safe). */
const AUTHOR_CACHE = new Map<number, Author[]>();
let cachedSeed: number | undefined;
let cachedAuthors: Author[] = [];

/** A few authors write a great deal, most rarely: the square of a uniform draw favours low indexes. */
function drawAuthorIndex(rng: SeededRandom): number {
  const u = rng.next();
  return Math.floor(u * u * AUTHORS);
}

function authorAt(seed: number, k: number): Author {
  if (seed !== cachedSeed) {
    let authors = AUTHOR_CACHE.get(seed);
    if (!authors) {
      if (AUTHOR_CACHE.size >= 16) AUTHOR_CACHE.delete(AUTHOR_CACHE.keys().next().value as number);
      AUTHOR_CACHE.set(seed, (authors = []));
    }
    cachedSeed = seed;
    cachedAuthors = authors;
  }
  return (cachedAuthors[k] ??= authorOf(seed, k));
}

const drawAuthor = (rng: SeededRandom, seed: number): Author => authorAt(seed, drawAuthorIndex(rng));

const NO_TOPICS: readonly Topic[] = Object.freeze([]);

function topicsFor(rng: SeededRandom): readonly Topic[] {
  const n = rng.chance(0.15) ? 0 : rng.chance(0.7) ? 1 : rng.chance(0.6) ? 2 : 3;
  if (n === 0) return NO_TOPICS;
  const out: Topic[] = [];
  for (let k = 0; k < n; k++) {
    const t = TOPICS.draw(rng);
    if (!out.includes(t)) out.push(t);
  }
  return out;
}

const FALLBACK_NOUNS = ['weekend', 'weather', 'commute', 'lunch'];
const REPLIES = ['So true', 'No way', 'Love this', 'Agreed', 'Hmm'];

function sentence(rng: SeededRandom, topics: readonly Topic[]): string {
  const t = topics[0];
  const noun = t ? `${t.name} ${t.word}` : rng.pick(FALLBACK_NOUNS);
  return `${rng.pick(OPENERS)} ${rng.pick(ADJECTIVES)} ${noun}${rng.chance(0.3) ? '!' : '.'}${topics[1] ? ` Also ${topics[1].name}.` : ''}`;
}

const NO_HASHTAGS: string[] = Object.freeze([]) as unknown as string[];

const topicObjects = (topics: readonly Topic[]): Readonly<{ name: string; category: string }>[] => topics.map((t) => t.object);

/*
 * The social network's interactions are made in two steps: every random draw of one interaction into a
 * row of numbers (`drawFacebook`), then the interaction built from the row (`buildFacebook`). The draws
 * are what the seed fixes and cost little; the objects and strings are most of the work and of the
 * garbage. A window (`FacebookWindow`) keeps only where the generator stood before each interaction and
 * its text key (`scanFacebook` makes the draws the texts depend on and skips the others), and builds
 * only the interactions something reads: a filter that reads only the texts is judged by the key.
 */

/** Slots of a facebook row (unsigned 32-bit numbers; `FB_ROW` of them). */
const AUTHOR_SLOT = 0;
const TYPE_SLOT = 1;
const ID_SLOT = 2; // four words: the id's 32 hex digits
const MEDIA_SLOT = 6;
const TOPIC_COUNT = 7;
const TOPIC_SLOT = 8; // up to three topics, distinct, in the order drawn
const NOUN_SLOT = 11; // the noun without a topic
const OPENER_SLOT = 12;
const ADJECTIVE_SLOT = 13;
const BANG_SLOT = 14;
const DOMAIN_SLOT = 15;
const LINK_N_SLOT = 16;
const SENTIMENT_SLOT = 17;
const HASHTAG_BITS = 18; // bit k: topic k's hashtag
const PARENT_SLOT = 19;
const MOBILE_SLOT = 20;
const REPLY_SLOT = 21;
const REPLY_ADJECTIVE = 22;
const REPLY_SENTIMENT = 23;
export const FB_ROW = 24;

const STORY = 0;
const LIKE = 1;
const COMMENT = 2;
const RESHARE = 3;
const LINK_MEDIA = 2;
/** A reshare's media type is "reshare", not one of `MEDIA`. */
const RESHARE_MEDIA = 255;

/**
 * The draws of a story (a story's own, or the one an engagement is on), in the order `story` made them.
 * Without `full`, the draws no text depends on (the link, the sentiment, the hashtags) are skipped.
 */
function drawStory(rng: SeededRandom, row: Uint32Array, o: number, isLink: boolean, full = true): void {
  const n = rng.chance(0.15) ? 0 : rng.chance(0.7) ? 1 : rng.chance(0.6) ? 2 : 3;
  let count = 0;
  for (let k = 0; k < n; k++) {
    const t = TOPICS.drawIndex(rng);
    let seen = false;
    for (let j = 0; j < count; j++) if (row[o + TOPIC_SLOT + j] === t) seen = true;
    if (!seen) row[o + TOPIC_SLOT + count++] = t;
  }
  row[o + TOPIC_COUNT] = count;
  if (count === 0) row[o + NOUN_SLOT] = rng.int(FALLBACK_NOUNS.length);
  row[o + OPENER_SLOT] = rng.int(OPENERS.length);
  row[o + ADJECTIVE_SLOT] = rng.int(ADJECTIVES.length);
  row[o + BANG_SLOT] = rng.chance(0.3) ? 1 : 0;
  if (!full) return rng.skip((isLink ? 2 : 0) + 1 + count);
  if (isLink) {
    row[o + DOMAIN_SLOT] = rng.int(DOMAINS.length);
    row[o + LINK_N_SLOT] = rng.int(1000);
  }
  row[o + SENTIMENT_SLOT] = SENTIMENT.drawIndex(rng);
  let bits = 0;
  for (let k = 0; k < count; k++) if (rng.chance(0.4)) bits |= 1 << k;
  row[o + HASHTAG_BITS] = bits;
}

/** Every random draw of one facebook interaction, into `row` at `o` (`FB_ROW` slots). */
export function drawFacebook(rng: SeededRandom, row: Uint32Array, o: number): void {
  row[o + AUTHOR_SLOT] = drawAuthorIndex(rng);
  const type = TYPES.drawIndex(rng);
  row[o + TYPE_SLOT] = type;
  for (let k = 0; k < 4; k++) row[o + ID_SLOT + k] = rng.word();
  if (type === STORY || type === RESHARE) {
    const media = type === RESHARE ? RESHARE_MEDIA : MEDIA.drawIndex(rng);
    row[o + MEDIA_SLOT] = media;
    drawStory(rng, row, o, media === LINK_MEDIA);
    return;
  }
  // An engagement: the engager, and the story engaged with (its author and its draws).
  row[o + PARENT_SLOT] = drawAuthorIndex(rng);
  const media = MEDIA.drawIndex(rng);
  row[o + MEDIA_SLOT] = media;
  drawStory(rng, row, o, media === LINK_MEDIA);
  row[o + MOBILE_SLOT] = rng.chance(0.7) ? 1 : 0;
  if (type === COMMENT) {
    row[o + REPLY_SLOT] = rng.int(REPLIES.length);
    row[o + REPLY_ADJECTIVE] = rng.int(ADJECTIVES.length);
    row[o + REPLY_SENTIMENT] = SENTIMENT.drawIndex(rng);
  }
}

const SCAN_ROW = new Uint32Array(FB_ROW);

/**
 * What `drawFacebook` draws, moving `rng` on exactly as far, but only the draws the texts depend on are
 * made (the others are skipped): answers the interaction's text key (`facebookTextKey`).
 */
export function scanFacebook(rng: SeededRandom): number {
  const row = SCAN_ROW;
  rng.skip(1); // the author
  const type = TYPES.drawIndex(rng);
  row[TYPE_SLOT] = type;
  rng.skip(4); // the id
  if (type === STORY || type === RESHARE) {
    const media = type === RESHARE ? RESHARE_MEDIA : MEDIA.drawIndex(rng);
    drawStory(rng, row, 0, media === LINK_MEDIA, false);
    return facebookTextKey(row, 0);
  }
  rng.skip(1); // the story's author
  const media = MEDIA.drawIndex(rng);
  drawStory(rng, row, 0, media === LINK_MEDIA, false);
  rng.skip(1); // mobile or desktop
  if (type === COMMENT) {
    row[REPLY_SLOT] = rng.int(REPLIES.length);
    row[REPLY_ADJECTIVE] = rng.int(ADJECTIVES.length);
    rng.skip(1); // the comment's sentiment
  }
  return facebookTextKey(row, 0);
}

const mediaOf = (media: number): string => (media === RESHARE_MEDIA ? 'reshare' : MEDIA.valueAt(media));

function rowTopics(row: Uint32Array, o: number): readonly Topic[] {
  const count = row[o + TOPIC_COUNT]!;
  if (count === 0) return NO_TOPICS;
  const out: Topic[] = [];
  for (let k = 0; k < count; k++) out.push(TOPIC_FACTS[row[o + TOPIC_SLOT + k]!]!);
  return out;
}

/** The index of a story's sentence among every sentence there is (`SENTENCE_KEYS`). */
function sentenceKey(row: Uint32Array, o: number): number {
  const count = row[o + TOPIC_COUNT]!;
  const noun = count > 0 ? row[o + TOPIC_SLOT]! : TOPIC_FACTS.length + row[o + NOUN_SLOT]!;
  const also = count > 1 ? row[o + TOPIC_SLOT + 1]! + 1 : 0;
  return (((noun * OPENERS.length + row[o + OPENER_SLOT]!) * ADJECTIVES.length + row[o + ADJECTIVE_SLOT]!) * 2 + row[o + BANG_SLOT]!) * (TOPIC_FACTS.length + 1) + also;
}

const SENTENCE_KEYS = (TOPIC_FACTS.length + FALLBACK_NOUNS.length) * OPENERS.length * ADJECTIVES.length * 2 * (TOPIC_FACTS.length + 1);
const REPLY_KEYS = REPLIES.length * ADJECTIVES.length * (TOPIC_FACTS.length + 1);

/**
 * Every text the social network's firehose writes, each made once per thread when first needed (at most
 * 61,530 strings of under a hundred characters): interactions with the same text share one string. Each
 * spelling its own cost the spelling and, kept by the recording, the memory: a string joined from pieces
 * is held as a tree of them until something reads it, and an interaction judged by its text key is not read.
 */
const SENTENCES: string[] = new Array<string>(SENTENCE_KEYS).fill('');
const REPLY_TEXTS: string[] = new Array<string>(REPLY_KEYS).fill('');

function rowSentence(row: Uint32Array, o: number): string {
  const key = sentenceKey(row, o);
  const known = SENTENCES[key]!;
  if (known) return known;
  const count = row[o + TOPIC_COUNT]!;
  const t = count > 0 ? TOPIC_FACTS[row[o + TOPIC_SLOT]!]! : undefined;
  const noun = t ? `${t.name} ${t.word}` : FALLBACK_NOUNS[row[o + NOUN_SLOT]!]!;
  const also = count > 1 ? ` Also ${TOPIC_FACTS[row[o + TOPIC_SLOT + 1]!]!.name}.` : '';
  return (SENTENCES[key] = `${OPENERS[row[o + OPENER_SLOT]!]} ${ADJECTIVES[row[o + ADJECTIVE_SLOT]!]} ${noun}${row[o + BANG_SLOT] ? '!' : '.'}${also}`);
}

/** The index of a comment's text among every reply there is (`REPLY_KEYS`). */
const replyKey = (row: Uint32Array, o: number): number =>
  (row[o + REPLY_SLOT]! * ADJECTIVES.length + row[o + REPLY_ADJECTIVE]!) * (TOPIC_FACTS.length + 1) + (row[o + TOPIC_COUNT]! > 0 ? row[o + TOPIC_SLOT]! : TOPIC_FACTS.length);

function rowReply(row: Uint32Array, o: number): string {
  const key = replyKey(row, o);
  return (REPLY_TEXTS[key] ||= `${REPLIES[row[o + REPLY_SLOT]!]}, ${ADJECTIVES[row[o + REPLY_ADJECTIVE]!]} ${row[o + TOPIC_COUNT]! > 0 ? TOPIC_FACTS[row[o + TOPIC_SLOT]!]!.word : 'post'}`);
}

interface Link {
  domain: string;
  path: string;
  /** The path's first segment: the topic's word, or "page". */
  word: string;
  url: string;
}

interface Story {
  topics: readonly Topic[];
  content: string;
  link: Link | undefined;
  language: string;
  sentiment: string;
  hashtags: string[];
}

function rowStory(row: Uint32Array, o: number, a: Author, mediaType: string): Story {
  const topics = rowTopics(row, o);
  const content = rowSentence(row, o);
  let link: Link | undefined;
  if (mediaType === 'link') {
    const domain = DOMAINS[row[o + DOMAIN_SLOT]!]!;
    const word = topics[0]?.word ?? 'page';
    const path = `/${word}/${row[o + LINK_N_SLOT]}`;
    link = { domain, path, word, url: `https://${domain}${path}` };
  }
  const bits = row[o + HASHTAG_BITS]!;
  let hashtags: string[] | undefined;
  for (let k = 0; k < topics.length; k++) if (bits & (1 << k)) (hashtags ??= []).push(topics[k]!.hashtag);
  return { topics, content, link, language: a.country[3], sentiment: SENTIMENT.valueAt(row[o + SENTIMENT_SLOT]!), hashtags: hashtags ?? NO_HASHTAGS };
}

/** The facebook interaction of a row at `at` (Unix ms). */
export function buildFacebook(row: Uint32Array, o: number, seed: number, at: number): Interaction {
  const author = authorAt(seed, row[o + AUTHOR_SLOT]!);
  const type = TYPES.valueAt(row[o + TYPE_SLOT]!);
  const id = hexOfWords(row[o + ID_SLOT]!, row[o + ID_SLOT + 1]!, row[o + ID_SLOT + 2]!, row[o + ID_SLOT + 3]!);
  const fb: Record<string, unknown> = { author: author.demographics, type };
  let content = '';
  let link: Link | undefined;
  const mediaType = mediaOf(row[o + MEDIA_SLOT]!);
  if (type === 'story' || type === 'reshare') {
    const s = rowStory(row, o, author, mediaType);
    content = s.content;
    link = s.link;
    fb.content = content;
    fb.media_type = mediaType;
    fb.language = s.language;
    fb.sentiment = s.sentiment;
    fb.hashtags = s.hashtags;
    if (s.topics.length > 0) {
      fb.topics = topicObjects(s.topics);
      fb.topic_ids = s.topics.map((t) => t.id);
    }
    if (link) fb.link = link.url;
    fb.all = { content };
  } else {
    const parentAuthor = authorAt(seed, row[o + PARENT_SLOT]!);
    const p = rowStory(row, o, parentAuthor, mediaType);
    link = p.link;
    const parent: Record<string, unknown> = {
      author: parentAuthor.demographics,
      content: p.content,
      media_type: mediaType,
      language: p.language,
      sentiment: p.sentiment,
      hashtags: p.hashtags,
      interface: row[o + MOBILE_SLOT] ? 'mobile' : 'desktop',
    };
    if (p.topics.length > 0) parent.topics = topicObjects(p.topics);
    if (link) parent.link = link.url;
    fb.parent = parent;
    if (type === 'comment') {
      content = rowReply(row, o);
      fb.content = content;
      fb.language = author.country[3];
      fb.sentiment = SENTIMENT.valueAt(row[o + REPLY_SENTIMENT]!);
    }
    fb.media_type = mediaType;
    fb.all = { content: content || p.content };
  }
  const out: Interaction = {
    interaction: { id, created_at: Math.floor(at / 1000), subtype: type, media_type: mediaType, content, author: author.ref, type: 'facebook' },
    fb,
  };
  if (link) {
    out.links = { url: [link.url], normalized_url: [`${link.domain}${link.path}`], domain: [link.domain], title: [`${link.word} on ${link.domain}`], code: [200] };
  }
  return out;
}

/** How many text keys there are (`facebookTextKey` answers below it). */
export const FB_TEXT_KEYS = 1 + REPLY_KEYS + SENTENCE_KEYS;

/**
 * A number for a row's texts: rows with one key have the same `interaction.content` and the same
 * `fb.content` (present or absent alike), so a filter that reads only those is judged once per key.
 * 0 is a like (no text of its own); then the comments; then the stories and reshares.
 */
export function facebookTextKey(row: Uint32Array, o: number): number {
  const type = row[o + TYPE_SLOT]!;
  if (type === LIKE) return 0;
  return type === COMMENT ? 1 + replyKey(row, o) : 1 + REPLY_KEYS + sentenceKey(row, o);
}

/** The texts of a row as an interaction holding nothing else: what a filter reading only them sees. */
export function facebookTextProbe(row: Uint32Array, o: number): Interaction {
  const type = row[o + TYPE_SLOT]!;
  if (type === LIKE) return { interaction: { content: '' }, fb: {} };
  const content = type === COMMENT ? rowReply(row, o) : rowSentence(row, o);
  return { interaction: { content }, fb: { content } };
}

const SCRATCH_ROW = new Uint32Array(FB_ROW);

function facebook(rng: SeededRandom, seed: number, at: number): Interaction {
  drawFacebook(rng, SCRATCH_ROW, 0);
  return buildFacebook(SCRATCH_ROW, 0, seed, at);
}

/**
 * A member's employer size and education: facts of the member's profile, so drawn from (seed, member)
 * rather than per interaction, and cached on the author like its demographics.
 */
function educationOf(seed: number, a: Author): Readonly<Record<string, unknown>> {
  if (a.education) return a.education;
  const rng = new SeededRandom(mixSeed(seed, 0x11ed, a.k));
  const [field, group] = rng.pick(LI_FIELD_GROUPS_OF);
  a.education = Object.freeze({
    employer_size: rng.pick(LI_SIZE_VALUES),
    degree_groups: [rng.pick(LI_DEGREE_VALUES)],
    field_names: [field],
    field_groups: [group],
    education_status: rng.pick(LI_STATUS_VALUES),
  });
  return a.education;
}

/** The article a share links to: its domain and a URL on it about the share's first topic. */
const articleOf = (domain: string, topic: Topic) => ({ domain: [domain], url: [`https://${domain}/${topic.word}`] });

function linkedin(rng: SeededRandom, seed: number, at: number): Interaction {
  const a = drawAuthor(rng, seed);
  const share = rng.chance(0.35);
  const topics = topicsFor(rng);
  const content = share ? '' : sentence(rng, topics);
  const country = a.country[0].toLowerCase();
  const age = LI_AGES.draw(rng);
  const metro = rng.pick(LI_METROS);
  const [industry, sector] = rng.pick(LI_INDUSTRY_SECTORS);
  const member = {
    id: a.id,
    type: 'member',
    age,
    gender: a.gender,
    country,
    minor_continent: LI_CONTINENT_OF.get(country) ?? 'unknown',
    metro_area: metro,
    employer_industry_sectors: [sector],
    employer_industry_names: [industry],
    seniority: rng.pick(LI_SENIORITY_VALUES),
    functions: [rng.pick(LI_FUNCTION_VALUES)],
    ...educationOf(seed, a),
  };
  return {
    interaction: { id: rng.hex(32), created_at: Math.floor(at / 1000), subtype: share ? 'like' : 'activity', content, author: a.ref, type: 'linkedin' },
    li: {
      type: share ? 'share' : 'activity',
      subtype: share ? 'share|like' : 'activity|share',
      media_type: 'post',
      content,
      all: { content: content || sentence(rng, topics), articles: topics.length > 0 ? articleOf(rng.pick(DOMAINS), topics[0]!) : undefined },
      user: { member },
    },
  };
}

const MINUTE = 60_000;

/**
 * The firehose of one minute (`minute` = ms since the epoch / 60,000): `perMinute` interactions spread
 * over the minute, in time order. The same (seed, service, minute) always gives the same interactions.
 */
export function firehoseMinute(seed: number, service: FirehoseService, minute: number, perMinute: number): Interaction[] {
  const rng = new SeededRandom(mixSeed(seed, service === 'facebook' ? 1 : 2, minute));
  const out: Interaction[] = [];
  for (let n = 0; n < perMinute; n++) {
    // Whole seconds, as `created_at` carries them, so any split of a window feeds each one exactly once.
    const at = minute * MINUTE + Math.floor(((n + rng.next()) * 60) / perMinute) * 1000;
    out.push(service === 'facebook' ? facebook(rng, seed, at) : linkedin(rng, seed, at));
  }
  return out;
}

/** Every interaction of `[fromMs, toMs)`, minute by minute, as one list (what a catch-up records at once). */
export function firehoseWindow(seed: number, service: FirehoseService, perMinute: number, fromMs: number, toMs: number): Interaction[] {
  const out: Interaction[] = [];
  for (let m = Math.floor(fromMs / MINUTE); m * MINUTE < toMs; m++) {
    const minute = firehoseMinute(seed, service, m, perMinute);
    // A minute wholly inside the window needs no look at its times.
    if (m * MINUTE >= fromMs && (m + 1) * MINUTE <= toMs) {
      for (let k = 0; k < minute.length; k++) out.push(minute[k]!);
      continue;
    }
    for (const i of minute) {
      const at = (i.interaction as { created_at: number }).created_at * 1000;
      if (at >= fromMs && at < toMs) out.push(i);
    }
  }
  return out;
}

/** How many filters' verdicts by text key a thread keeps (61,531 bytes each; the oldest go first). */
export const VERDICT_TABLES = 64;
const VERDICTS = new Map<string, Uint8Array>();

/**
 * The social network's firehose of `[fromMs, toMs)` held as where the generator stood before each
 * interaction and its text key (the same interactions as `firehoseWindow`, in the same order): `build`
 * makes one, `keyOf` and `probe` read its texts.
 */
export class FacebookWindow {
  /** Where the generator stood before each interaction's draws: `build` draws it again from there. */
  private readonly positions: number[] = [];
  private readonly ats: number[] = [];
  private readonly keys: number[] = [];

  constructor(
    private readonly seed: number,
    perMinute: number,
    fromMs: number,
    toMs: number,
  ) {
    for (let m = Math.floor(fromMs / MINUTE); m * MINUTE < toMs; m++) {
      const rng = new SeededRandom(mixSeed(seed, 1, m));
      for (let n = 0; n < perMinute; n++) {
        const at = m * MINUTE + Math.floor(((n + rng.next()) * 60) / perMinute) * 1000;
        const position = rng.position;
        // Interactions of the minute outside the window move the generator on all the same.
        const key = scanFacebook(rng);
        if (at < fromMs || at >= toMs) continue;
        this.positions.push(position);
        this.ats.push(at);
        this.keys.push(key);
      }
    }
  }

  get length(): number {
    return this.ats.length;
  }

  keyOf(k: number): number {
    return this.keys[k]!;
  }

  probe(k: number): Interaction {
    return facebookTextProbe(this.row(k), 0);
  }

  /** A filter's verdicts by text key, kept for the filters judged last (`VERDICT_TABLES` of them). */
  verdicts(filter: { hash: string; kind: string }): Uint8Array {
    const id = `${filter.kind}:${filter.hash}`;
    let table = VERDICTS.get(id);
    if (table) return table;
    if (VERDICTS.size >= VERDICT_TABLES) VERDICTS.delete(VERDICTS.keys().next().value as string);
    VERDICTS.set(id, (table = new Uint8Array(FB_TEXT_KEYS)));
    return table;
  }

  build(k: number): Interaction {
    return buildFacebook(this.row(k), 0, this.seed, this.ats[k]!);
  }

  /** The k-th interaction's draws, made again from where the generator stood (in a row reused by every call). */
  private row(k: number): Uint32Array {
    drawFacebook(new SeededRandom(this.positions[k]!), SCRATCH_ROW, 0);
    return SCRATCH_ROW;
  }
}

/** Every interaction of `[fromMs, toMs)`, minute by minute. */
export function* firehoseBetween(seed: number, service: FirehoseService, perMinute: number, fromMs: number, toMs: number): Generator<Interaction> {
  for (let m = Math.floor(fromMs / MINUTE); m * MINUTE < toMs; m++) {
    for (const i of firehoseMinute(seed, service, m, perMinute)) {
      const at = (i.interaction as { created_at: number }).created_at * 1000;
      if (at >= fromMs && at < toMs) yield i;
    }
  }
}
