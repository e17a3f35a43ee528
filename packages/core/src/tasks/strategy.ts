import type { AnalysisRequest, FreqDistSpec } from '../analysis/analysis-request.ts';
import { analysisWindow } from '../analysis/analysis-request.ts';
import { runAnalysis, type AnalysisEntry } from '../analysis/run-analysis.ts';
import type { AccountPackage } from '../accounting/package.ts';
import { BadRequest, oneOf } from '../calls/errors.ts';
import { isJsonObject, wholeNumber } from '../calls/params.ts';
import type { RecordingIndex } from '../recording-index/recording-index.ts';
import { audienceDimension, referenceSetsOf } from '../reference/reference-sets.ts';

/**
 * Strategy tasks (docs/clients.md#tasks: "media strategies"): which items an audience engages with more than
 * a comparison audience does. The original never showed a strategy's result (docs/clients.md#what-no-client-shows), so this is
 * the platform's own reading, in the spirit of an analysis task: over the recording the task names and
 * the window its `start`/`end` give, the audience is the interactions whose members have the reference
 * values the request lists (and its keywords), the comparison audience (`global`) every interaction of
 * the window; each of the audience's top items is shown with its counts in both and an index (the
 * audience's share of unique authors over the comparison's, × 100). Both are freqDist analyses, so the
 * privacy thresholds of analysis apply.
 */

/** What a strategy ranks: the articles members share, or a member dimension of the reference data. */
const ITEM_TARGETS: Readonly<Record<string, string>> = {
  top_urls: 'li.all.articles.url',
  top_domains: 'li.all.articles.domain',
};

/** The strategies a service offers: the item strategies and `top_<set>` for each reference set with a target. */
export function strategiesOf(service: string): Record<string, string> {
  const out: Record<string, string> = { ...ITEM_TARGETS };
  for (const s of referenceSetsOf(service)) if (s.target !== null) out[`top_${s.slug.slice(1)}`] = s.target;
  return out;
}

export const STRATEGY_VERSIONS = [1] as const;
/** Items a strategy shows, and groups at most. */
export const STRATEGY_TOP = 10;
export const STRATEGY_MAX_GROUPS = 10;
/** Values one audience dimension or keyword list may name (an `in` or `contains_any` holds at most 100). */
export const STRATEGY_MAX_VALUES = 100;
const MAX_KEYWORD_CHARS = 100;

export interface StrategyRequest {
  strategy: string;
  version: number;
  /** The ranked target. */
  target: string;
  /** Reference set slug (without slash) → the values its members have; ANDed across sets. */
  audience: Record<string, string[]>;
  keywords?: { any?: string[]; all?: string[] };
  comparison: 'global';
  groups?: { dimension: string; top: number };
  start?: number;
  end?: number;
}

function stringList(where: string, v: unknown): string[] {
  const list = typeof v === 'string' ? v.split(',').map((x) => x.trim()).filter((x) => x.length > 0) : v;
  if (!Array.isArray(list) || list.length === 0 || !list.every((x) => typeof x === 'string' && x.length > 0)) throw new BadRequest(`${where} must be a non-empty list of strings`);
  if (list.length > STRATEGY_MAX_VALUES) throw new BadRequest(`${where} holds ${list.length} values; at most ${STRATEGY_MAX_VALUES}`);
  return list as string[];
}

function keywordList(where: string, v: unknown): string[] {
  const list = stringList(where, v);
  for (const k of list) {
    if (k.length > MAX_KEYWORD_CHARS || /[",\\]/.test(k)) throw new BadRequest(`${where} holds "${k.slice(0, 40)}": a keyword is at most ${MAX_KEYWORD_CHARS} characters, without commas, quotes or backslashes`);
  }
  return list;
}

/**
 * Checks a strategy task's `parameters` (docs/clients.md#tasks), so a queued strategy always runs: the
 * strategy's name as `strategy` (or `insight`, as the Ruby client sends it), `version` 1, and
 * `parameters.{audience, comparison_audience, groups}`; `start`/`end` as an analysis task's.
 */
export function validateStrategyRequest(service: string, raw: unknown): StrategyRequest {
  if (!isJsonObject(raw)) throw new BadRequest('the strategy request must be a JSON object');
  const strategies = strategiesOf(service);
  const named = raw.strategy ?? raw.insight;
  if (typeof named !== 'string' || named.length === 0) throw new BadRequest("Missing param 'parameters.strategy'");
  const strategy = oneOf('parameters.strategy', named, Object.keys(strategies));
  const version = wholeNumber('parameters.version', raw.version) ?? 1;
  if (!(STRATEGY_VERSIONS as readonly number[]).includes(version)) throw new BadRequest(`parameters.version is invalid; valid values are: ${STRATEGY_VERSIONS.join(',')}`);
  const p = raw.parameters;
  if (!isJsonObject(p)) throw new BadRequest("Missing param 'parameters.parameters' (an object with the audience)");
  if (!isJsonObject(p.audience) || Object.keys(p.audience).length === 0) throw new BadRequest("Missing param 'parameters.parameters.audience' (reference values by set, or keywords)");
  const audience: Record<string, string[]> = {};
  let keywords: StrategyRequest['keywords'];
  const kw = (v: unknown, where: string) => {
    if (!isJsonObject(v) || (v.any === undefined && v.all === undefined)) throw new BadRequest(`${where} must be an object with any and/or all`);
    return { ...(v.any !== undefined ? { any: keywordList(`${where}.any`, v.any) } : {}), ...(v.all !== undefined ? { all: keywordList(`${where}.all`, v.all) } : {}) };
  };
  for (const [name, values] of Object.entries(p.audience)) {
    if (name === 'keywords') {
      keywords = kw(values, 'parameters.parameters.audience.keywords');
      continue;
    }
    const set = audienceDimension(service, name);
    if (!set) throw new BadRequest(`parameters.parameters.audience.${name} names no reference set of ${service}; see GET /insight/${service}/reference`);
    const list = stringList(`parameters.parameters.audience.${name}`, values);
    const known = new Set(set.values.map((v) => v.value));
    const unknown = list.find((v) => !known.has(v));
    if (unknown !== undefined) throw new BadRequest(`parameters.parameters.audience.${name} holds ${JSON.stringify(unknown)}, not a value of ${set.slug}; see GET /insight/${service}/reference${set.slug}`);
    audience[name] = [...new Set(list)];
  }
  if (p.keywords !== undefined) keywords = kw(p.keywords, 'parameters.parameters.keywords');
  const comparison = oneOf('parameters.parameters.comparison_audience', p.comparison_audience === undefined ? 'global' : String(p.comparison_audience), ['global'] as const);
  let groups: StrategyRequest['groups'];
  if (p.groups !== undefined) {
    const top = isJsonObject(p.groups) ? p.groups.top : undefined;
    const entries = isJsonObject(top) ? Object.entries(top) : [];
    if (entries.length !== 1) throw new BadRequest('parameters.parameters.groups must be {"top": {"<reference set>": <how many>}} with one set');
    const [dimension, n] = entries[0]!;
    if (!audienceDimension(service, dimension)) throw new BadRequest(`parameters.parameters.groups.top.${dimension} names no reference set of ${service}`);
    groups = { dimension, top: wholeNumber(`parameters.parameters.groups.top.${dimension}`, n, { min: 1, max: STRATEGY_MAX_GROUPS })! };
    if (groups.top === undefined) throw new BadRequest(`parameters.parameters.groups.top.${dimension} must be a whole number from 1 to ${STRATEGY_MAX_GROUPS}`);
  }
  const start = wholeNumber('parameters.start', raw.start, { min: 0 });
  const end = wholeNumber('parameters.end', raw.end, { min: 0 });
  if (start !== undefined && end !== undefined && start >= end) throw new BadRequest('Start cannot be after end');
  return {
    strategy,
    version,
    target: strategies[strategy]!,
    audience,
    ...(keywords ? { keywords } : {}),
    comparison,
    ...(groups ? { groups } : {}),
    ...(start !== undefined ? { start } : {}),
    ...(end !== undefined ? { end } : {}),
  };
}

const quoted = (values: readonly string[]): string => `"${values.join(',')}"`;

/** The audience as a query filter: one `in` per reference set, the keywords as `contains_any`/`contains_all`. */
export function audienceFilter(service: string, req: Pick<StrategyRequest, 'audience' | 'keywords'>): string[] {
  const out: string[] = [];
  for (const [name, values] of Object.entries(req.audience)) out.push(`${audienceDimension(service, name)!.target} in ${quoted(values)}`);
  if (req.keywords?.any) out.push(`li.all.content contains_any ${quoted(req.keywords.any)}`);
  if (req.keywords?.all) out.push(`li.all.content contains_all ${quoted(req.keywords.all)}`);
  return out;
}

/** The window an analysis of the request covers (checked when the task is created). */
export const strategyWindow = (req: StrategyRequest, now: number): { from: number; to: number } => analysisWindow(analysisOf(req, req.target, [], STRATEGY_TOP), now);

function analysisOf(req: StrategyRequest, target: string, conditions: readonly string[], threshold: number): AnalysisRequest {
  const parameters: FreqDistSpec = { analysis_type: 'freqDist', parameters: { target, threshold } };
  return {
    parameters,
    ...(conditions.length > 0 ? { filter: conditions.join(' and ') } : {}),
    ...(req.start !== undefined ? { start: req.start } : {}),
    ...(req.end !== undefined ? { end: req.end } : {}),
  };
}

export interface StrategyItem {
  key: string | number;
  interactions: number;
  unique_authors: number;
  comparison_interactions: number;
  comparison_unique_authors: number;
  /** The audience's share of unique authors over the comparison's, × 100 (100: as common as in the comparison). */
  index: number;
}

export interface StrategyGroup {
  dimension: string;
  key: string | number;
  interactions: number;
  unique_authors: number;
  results: StrategyItem[];
}

export interface StrategyResult {
  strategy: string;
  version: number;
  audience: { interactions: number; unique_authors: number };
  comparison_audience: { name: 'global'; interactions: number; unique_authors: number };
  redacted: boolean;
  results: StrategyItem[];
  groups?: StrategyGroup[];
}

interface RunContext {
  recordingIndex: RecordingIndex;
  now: number;
  account: { package: AccountPackage };
}

async function ranked(ctx: RunContext, recordingId: string, req: StrategyRequest, conditions: string[], total: { unique_authors: number }) {
  const aud = await runAnalysis(ctx, recordingId, analysisOf(req, req.target, conditions, STRATEGY_TOP));
  const keys = aud.analysis.results.map((r) => String(r.key));
  const cmpByKey = new Map<string, AnalysisEntry>();
  if (keys.length > 0) {
    // The comparison's counts of exactly the audience's items, whatever their rank in the comparison.
    const cmp = await runAnalysis(ctx, recordingId, analysisOf(req, req.target, [`${req.target} in ${quoted(keys)}`], keys.length));
    for (const r of cmp.analysis.results) cmpByKey.set(String(r.key), r);
  }
  const results = aud.analysis.results.map((r): StrategyItem => {
    const c = cmpByKey.get(String(r.key));
    const share = aud.unique_authors > 0 ? r.unique_authors / aud.unique_authors : 0;
    const base = c && total.unique_authors > 0 ? c.unique_authors / total.unique_authors : 0;
    return {
      key: r.key,
      interactions: r.interactions,
      unique_authors: r.unique_authors,
      comparison_interactions: c?.interactions ?? 0,
      comparison_unique_authors: c?.unique_authors ?? 0,
      index: base > 0 ? Math.round((100 * share) / base) : 0,
    };
  });
  return { aud, results };
}

/** Runs a validated strategy over a recording's index, as of `ctx.now` (the task's finish). */
export async function runStrategy(ctx: RunContext, service: string, recordingId: string, req: StrategyRequest): Promise<StrategyResult> {
  const conditions = audienceFilter(service, req);
  // The comparison audience's size: the same window, no audience.
  const global = await runAnalysis(ctx, recordingId, analysisOf(req, req.target, [], 1));
  const { aud, results } = await ranked(ctx, recordingId, req, conditions, global);
  const out: StrategyResult = {
    strategy: req.strategy,
    version: req.version,
    audience: { interactions: aud.interactions, unique_authors: aud.unique_authors },
    comparison_audience: { name: req.comparison, interactions: global.interactions, unique_authors: global.unique_authors },
    redacted: aud.analysis.redacted,
    results,
  };
  if (req.groups) {
    const dim = audienceDimension(service, req.groups.dimension)!;
    const top = await runAnalysis(ctx, recordingId, analysisOf(req, dim.target!, conditions, req.groups.top));
    out.groups = [];
    for (const g of top.analysis.results) {
      const within = [...conditions, `${dim.target} == "${String(g.key)}"`];
      out.groups.push({ dimension: req.groups.dimension, key: g.key, interactions: g.interactions, unique_authors: g.unique_authors, results: (await ranked(ctx, recordingId, req, within, global)).results });
    }
  }
  return out;
}
