import type { AnalysisRequest, FreqDistSpec } from '../analysis/analysis-request.ts';
import { analysisWindow } from '../analysis/analysis-request.ts';
import { runAnalysis, type AnalysisEntry } from '../analysis/run-analysis.ts';
import type { AccountPackage } from '../accounting/package.ts';
import { BadRequest, oneOf } from '../calls/errors.ts';
import { readParams } from '../contract/read.ts';
import type { RecordingIndex } from '../recording-index/recording-index.ts';
import { audienceDimension, referenceSetsOf } from '../reference/reference-sets.ts';
import { strategyRequestSchema, type StrategyShape } from '../contract/strategy-request.ts';

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

export { STRATEGY_MAX_GROUPS, STRATEGY_MAX_VALUES, STRATEGY_VERSIONS } from '../contract/strategy-request.ts';
/** Items a strategy shows. */
export const STRATEGY_TOP = 10;

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

/**
 * Judges what a strategy request (read by `strategyRequestSchema`, docs/clients.md#tasks) asks of the
 * service, so a queued strategy always runs: a strategy it offers, reference sets it has and their
 * values, a grouping by one of its sets.
 */
export function strategyOf(service: string, req: StrategyShape): StrategyRequest {
  const strategies = strategiesOf(service);
  const strategy = oneOf('parameters.strategy', req.strategy, Object.keys(strategies));
  const p = req.parameters;
  const audience: Record<string, string[]> = {};
  for (const [name, values] of Object.entries(p.audience)) {
    if (name === 'keywords') continue;
    const set = audienceDimension(service, name);
    if (!set) throw new BadRequest(`parameters.parameters.audience.${name} names no reference set of ${service}; see GET /insight/${service}/reference`);
    const list = values as string[];
    const known = new Set(set.values.map((v) => v.value));
    const unknown = list.find((v) => !known.has(v));
    if (unknown !== undefined) throw new BadRequest(`parameters.parameters.audience.${name} holds ${JSON.stringify(unknown)}, not a value of ${set.slug}; see GET /insight/${service}/reference${set.slug}`);
    audience[name] = [...new Set(list)];
  }
  const keywords = p.keywords ?? p.audience.keywords;
  let groups: StrategyRequest['groups'];
  if (p.groups) {
    const [dimension, top] = Object.entries(p.groups.top)[0]!;
    if (!audienceDimension(service, dimension)) throw new BadRequest(`parameters.parameters.groups.top.${dimension} names no reference set of ${service}`);
    groups = { dimension, top };
  }
  return {
    strategy,
    version: req.version,
    target: strategies[strategy]!,
    audience,
    ...(keywords ? { keywords: { ...(keywords.any ? { any: keywords.any } : {}), ...(keywords.all ? { all: keywords.all } : {}) } } : {}),
    comparison: p.comparison_audience,
    ...(groups ? { groups } : {}),
    ...(req.start !== undefined ? { start: req.start } : {}),
    ...(req.end !== undefined ? { end: req.end } : {}),
  };
}

/** Reads a stored or given strategy request through its schema, then judges it against the service. */
export function validateStrategyRequest(service: string, raw: unknown): StrategyRequest {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new BadRequest('the strategy request must be a JSON object');
  return strategyOf(service, readParams(strategyRequestSchema, raw as Record<string, unknown>));
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
