import type { Interaction } from '../filters/index.ts';
import { SeededRandom, Weighted, mixSeed } from './seeded-random.ts';

/**
 * Synthetic interactions with the shapes and rough distributions of filter-language.md §3: authors with
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
const TOPICS = new Weighted(TOPIC_LIST.map((t, k) => [t, 1 / (k + 1)] as const));
const ADJECTIVES = ['great', 'terrible', 'amazing', 'new', 'favourite', 'best', 'awful', 'lovely', 'big', 'quiet'];
const OPENERS = ['Just tried the', 'Loving the', 'Not sure about the', 'Who else saw the', 'Thinking about the', 'Cannot wait for the'];
const DOMAINS = ['example.com', 'news.example.org', 'blog.example.net', 'shop.example.com', 'video.example.tv'];

const LI_AGES = new Weighted([
  ['18-24', 15],
  ['25-34', 35],
  ['35-54', 40],
  ['55+', 8],
  ['unknown', 2],
] as const);
const LI_SECTORS = ['high-tech', 'finance', 'legal', 'healthcare', 'education', 'manufacturing', 'retail', 'media'];
const LI_SENIORITIES = ['cxo', 'director', 'entry', 'manager', 'owner', 'partner', 'senior', 'training', 'unpaid', 'vp'];
const LI_FUNCTIONS = ['accounting', 'engineering', 'finance', 'human resources', 'information technology', 'legal', 'marketing', 'operations', 'research', 'sales'];
const LI_METROS = ['san francisco bay area', 'greater new york city area', 'greater london', 'greater chicago area', 'bengaluru area', 'greater paris metropolitan region'];

interface Author {
  id: string;
  age: string;
  gender: string;
  country: readonly [string, string, readonly string[], string];
  region: string;
  type: 'user' | 'page';
}

function authorOf(seed: number, k: number): Author {
  const rng = new SeededRandom(mixSeed(seed, 0xa17, k));
  const country = COUNTRIES.draw(rng);
  return {
    id: `${(seed >>> 0).toString(16)}${k.toString(16).padStart(6, '0')}`,
    age: AGES.draw(rng),
    gender: GENDERS.draw(rng),
    country,
    region: rng.pick(country[2]),
    type: rng.chance(0.05) ? 'page' : 'user',
  };
}

/** Authors of the seeds in use (an author is a pure function of seed and index, so caching is safe). */
const AUTHOR_CACHE = new Map<number, Author[]>();

/** A few authors write a great deal, most rarely: the square of a uniform draw favours low indexes. */
function drawAuthor(rng: SeededRandom, seed: number): Author {
  const u = rng.next();
  const k = Math.floor(u * u * AUTHORS);
  let authors = AUTHOR_CACHE.get(seed);
  if (!authors) {
    if (AUTHOR_CACHE.size >= 16) AUTHOR_CACHE.delete(AUTHOR_CACHE.keys().next().value as number);
    AUTHOR_CACHE.set(seed, (authors = []));
  }
  return (authors[k] ??= authorOf(seed, k));
}

function topicsFor(rng: SeededRandom): [string, string, string][] {
  const n = rng.chance(0.15) ? 0 : rng.chance(0.7) ? 1 : rng.chance(0.6) ? 2 : 3;
  const out: [string, string, string][] = [];
  for (let k = 0; k < n; k++) {
    const t = TOPICS.draw(rng);
    if (!out.includes(t)) out.push(t);
  }
  return out;
}

function sentence(rng: SeededRandom, topics: [string, string, string][]): string {
  const t = topics[0];
  const noun = t ? `${t[0]} ${t[2]}` : rng.pick(['weekend', 'weather', 'commute', 'lunch']);
  return `${rng.pick(OPENERS)} ${rng.pick(ADJECTIVES)} ${noun}${rng.chance(0.3) ? '!' : '.'}${topics[1] ? ` Also ${topics[1][0]}.` : ''}`;
}

const hashtagsOf = (topics: [string, string, string][]): string[] => topics.map((t) => t[0].toLowerCase().replace(/[^a-z0-9]/g, ''));

function demographics(a: Author): Record<string, unknown> {
  return { id: a.id, age: a.age, gender: a.gender, country: a.country[0], country_code: a.country[1], region: a.region, type: a.type };
}

function story(rng: SeededRandom, a: Author, mediaType: string) {
  const topics = topicsFor(rng);
  const content = sentence(rng, topics);
  const link = mediaType === 'link' ? { domain: rng.pick(DOMAINS), path: `/${topics[0]?.[2] ?? 'page'}/${rng.int(1000)}` } : undefined;
  return { topics, content, link, language: a.country[3], sentiment: SENTIMENT.draw(rng), hashtags: hashtagsOf(topics).filter(() => rng.chance(0.4)) };
}

function facebook(rng: SeededRandom, seed: number, at: number): Interaction {
  const author = drawAuthor(rng, seed);
  const type = TYPES.draw(rng);
  const id = rng.hex(32);
  const fb: Record<string, unknown> = { author: demographics(author), type };
  let content = '';
  let link: { domain: string; path: string } | undefined;
  let mediaType: string;
  if (type === 'story' || type === 'reshare') {
    mediaType = type === 'reshare' ? 'reshare' : MEDIA.draw(rng);
    const s = story(rng, author, mediaType);
    content = s.content;
    link = s.link;
    Object.assign(fb, { content, media_type: mediaType, language: s.language, sentiment: s.sentiment, hashtags: s.hashtags });
    if (s.topics.length > 0) {
      fb.topics = s.topics.map(([name, category]) => ({ name, category }));
      fb.topic_ids = s.topics.map((t) => 100_000_000 + TOPIC_LIST.indexOf(t));
    }
    if (link) fb.link = `https://${link.domain}${link.path}`;
  } else {
    // An engagement: the engager's demographics, and the story engaged with as the parent.
    const parentAuthor = drawAuthor(rng, seed);
    mediaType = MEDIA.draw(rng);
    const p = story(rng, parentAuthor, mediaType);
    link = p.link;
    const parent: Record<string, unknown> = {
      author: demographics(parentAuthor),
      content: p.content,
      media_type: mediaType,
      language: p.language,
      sentiment: p.sentiment,
      hashtags: p.hashtags,
      interface: rng.chance(0.7) ? 'mobile' : 'desktop',
    };
    if (p.topics.length > 0) parent.topics = p.topics.map(([name, category]) => ({ name, category }));
    if (link) parent.link = `https://${link.domain}${link.path}`;
    fb.parent = parent;
    if (type === 'comment') {
      content = `${rng.pick(['So true', 'No way', 'Love this', 'Agreed', 'Hmm'])}, ${rng.pick(ADJECTIVES)} ${p.topics[0]?.[2] ?? 'post'}`;
      Object.assign(fb, { content, language: author.country[3], sentiment: SENTIMENT.draw(rng) });
    }
    fb.media_type = mediaType;
  }
  fb.all = { content: content || (fb.parent as { content?: string } | undefined)?.content || '' };
  const out: Interaction = {
    interaction: { id, created_at: Math.floor(at / 1000), subtype: type, media_type: mediaType, content, author: { id: author.id }, type: 'facebook' },
    fb,
  };
  if (link) {
    const url = `https://${link.domain}${link.path}`;
    out.links = { url: [url], normalized_url: [`${link.domain}${link.path}`], domain: [link.domain], title: [`${link.path.split('/')[1]} on ${link.domain}`], code: [200] };
  }
  return out;
}

function linkedin(rng: SeededRandom, seed: number, at: number): Interaction {
  const a = drawAuthor(rng, seed);
  const share = rng.chance(0.35);
  const topics = topicsFor(rng);
  const content = share ? '' : sentence(rng, topics);
  const member = {
    id: a.id,
    type: 'member',
    age: LI_AGES.draw(rng),
    gender: a.gender,
    country: a.country[0].toLowerCase(),
    metro_area: rng.pick(LI_METROS),
    employer_industry_sectors: [rng.pick(LI_SECTORS)],
    seniority: rng.pick(LI_SENIORITIES),
    functions: [rng.pick(LI_FUNCTIONS)],
  };
  return {
    interaction: { id: rng.hex(32), created_at: Math.floor(at / 1000), subtype: share ? 'like' : 'activity', content, author: { id: a.id }, type: 'linkedin' },
    li: {
      type: share ? 'share' : 'activity',
      subtype: share ? 'share|like' : 'activity|share',
      media_type: 'post',
      content,
      all: { content: content || sentence(rng, topics), articles: topics.length > 0 ? { domain: [rng.pick(DOMAINS)] } : undefined },
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

/** Every interaction of `[fromMs, toMs)`, minute by minute. */
export function* firehoseBetween(seed: number, service: FirehoseService, perMinute: number, fromMs: number, toMs: number): Generator<Interaction> {
  for (let m = Math.floor(fromMs / MINUTE); m * MINUTE < toMs; m++) {
    for (const i of firehoseMinute(seed, service, m, perMinute)) {
      const at = (i.interaction as { created_at: number }).created_at * 1000;
      if (at >= fromMs && at < toMs) yield i;
    }
  }
}
