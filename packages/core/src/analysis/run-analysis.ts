import type { AccountPackage } from '../accounting/package.ts';
import { compileFilter, type CompiledFilter, type Interaction } from '../filters/index.ts';
import { authorOf } from '../recording-index/interaction-facts.ts';
import { RETENTION_MS, RecordedSet, type RecordingIndex } from '../recording-index/recording-index.ts';
import { INTERVAL_MS, analysisWindow, type AnalysisRequest, type FreqDistSpec, type TimeSeriesSpec } from './analysis-request.ts';
import { AuthorStamps, Scratch, bucketsByCodes, bucketsByColumn } from './distribution.ts';
import { windowCountsOf } from './window-counts.ts';

/** Privacy thresholds (docs/contract.md#filter-and-analysis-limits): package settings, so test data can lower them. */
export interface Redaction {
  /** Unique authors the whole analysis needs before it shows anything. */
  audienceMin: number;
  /** Unique authors a bucket needs to be shown. */
  bucketMin: number;
}

export const redactionOf = (p: Pick<AccountPackage, 'redaction_audience_min' | 'redaction_bucket_min'>): Redaction => ({
  audienceMin: p.redaction_audience_min,
  bucketMin: p.redaction_bucket_min,
});

export interface AnalysisEntry {
  key: string | number;
  interactions: number;
  unique_authors: number;
  child?: AnalysisOutput;
}

export interface AnalysisOutput {
  analysis_type: 'freqDist' | 'timeSeries';
  parameters: Record<string, unknown>;
  redacted: boolean;
  results: AnalysisEntry[];
}

/** The analyze response (docs/clients.md#analysis). */
export interface AnalysisResult {
  interactions: number;
  unique_authors: number;
  analysis: AnalysisOutput;
}

interface Scan {
  set: RecordedSet;
  authors: Int32Array;
  stamps: AuthorStamps;
  bucketMin: number;
  scratch: Scratch;
}

/** Working memory kept per recorded set between analyses. */
const SCRATCH = new WeakMap<RecordedSet, Scratch>();
function scratchOf(set: RecordedSet): Scratch {
  let s = SCRATCH.get(set);
  if (!s) SCRATCH.set(set, (s = new Scratch()));
  return s;
}

/**
 * Analyses the rows of a recorded set within `[from, to)` (and within retention), after the query
 * filter. Buckets with fewer unique authors than `bucketMin` are left out; below `audienceMin` for the
 * whole selection the answer is redacted: counts 0, no results, `redacted: true`.
 */
export function analyseSet(
  set: RecordedSet | undefined,
  authorCount: number,
  request: Pick<AnalysisRequest, 'parameters'>,
  window: { from: number; to: number },
  filter: CompiledFilter | undefined,
  redaction: Redaction,
  now: number,
): AnalysisResult {
  const spec = request.parameters;
  if (set && !filter && set.ordered && spec.analysis_type === 'freqDist' && !spec.child) {
    return slidingFreqDist(set, spec, window.to - window.from, set.firstRowAtOrAfter(Math.max(window.from, now - RETENTION_MS)), set.firstRowAtOrAfter(window.to), redaction);
  }
  return scanSet(set, authorCount, request, window, filter, redaction, now);
}

/** `analyseSet` by a full pass over the window's rows: any request, any set (the reference for the kept counts). */
export function scanSet(
  set: RecordedSet | undefined,
  authorCount: number,
  request: Pick<AnalysisRequest, 'parameters'>,
  window: { from: number; to: number },
  filter: CompiledFilter | undefined,
  redaction: Redaction,
  now: number,
): AnalysisResult {
  const spec = request.parameters;
  let rows = set ? set.rowsBetween(Math.max(window.from, now - RETENTION_MS), window.to) : new Int32Array(0);
  if (set && filter) {
    const kept = scratchOf(set).take(FILTERED_SLOT, rows.length);
    let n = 0;
    for (let k = 0; k < rows.length; k++) if (filter.match(set.docs[rows[k]!]!).matched) kept[n++] = rows[k]!;
    rows = kept.subarray(0, n);
  }
  const stamps = new AuthorStamps(authorCount);
  const authors = set ? set.authors.data : new Int32Array(0);
  const unique = set ? stamps.count(rows, authors) : 0;
  if (!set || unique < redaction.audienceMin || rows.length === 0) {
    const redacted = unique < redaction.audienceMin;
    return { interactions: 0, unique_authors: 0, analysis: { analysis_type: spec.analysis_type, parameters: { ...spec.parameters }, redacted, results: [] } };
  }
  const scan: Scan = { set, authors, stamps, bucketMin: redaction.bucketMin, scratch: scratchOf(set) };
  const analysis = spec.analysis_type === 'freqDist' ? freqDist(scan, rows, spec, 0) : timeSeries(scan, rows, spec, window);
  return { interactions: rows.length, unique_authors: unique, analysis };
}

/**
 * A one-level frequency distribution from the counts kept for the window (rows `from` to `to` of a set
 * in time order): the same answer as a scan, at the cost of the rows that entered or left the window
 * since the last analysis of its kind.
 */
function slidingFreqDist(set: RecordedSet, spec: FreqDistSpec, windowMs: number, from: number, to: number, redaction: Redaction): AnalysisResult {
  const counts = windowCountsOf(set, spec.parameters.target, windowMs);
  const column = counts.moveTo(from, to);
  const unique = counts.authors.size;
  if (unique < redaction.audienceMin || counts.rows === 0) {
    return { interactions: 0, unique_authors: 0, analysis: { analysis_type: 'freqDist', parameters: { ...spec.parameters }, redacted: unique < redaction.audienceMin, results: [] } };
  }
  const buckets: { code: number; interactions: number; uniqueAuthors: number }[] = [];
  for (let code = 0; code < counts.interactions.length; code++) {
    const interactions = counts.interactions[code]!;
    const uniqueAuthors = counts.authorsByCode[code]!.size;
    if (interactions > 0 && uniqueAuthors >= redaction.bucketMin) buckets.push({ code, interactions, uniqueAuthors });
  }
  buckets.sort((a, b) => b.interactions - a.interactions || (column.keys[a.code]! < column.keys[b.code]! ? -1 : 1));
  const results = buckets.slice(0, spec.parameters.threshold).map((b) => ({ key: column.keys[b.code]!, interactions: b.interactions, unique_authors: b.uniqueAuthors }));
  return { interactions: counts.rows, unique_authors: unique, analysis: { analysis_type: 'freqDist', parameters: { ...spec.parameters }, redacted: false, results } };
}

/** Scratch slots: one per nesting depth, then the filtered rows and the time-series codes. */
const FILTERED_SLOT = 8;
const CODES_SLOT = 9;

function freqDist(scan: Scan, rows: Int32Array, spec: FreqDistSpec, depth: number): AnalysisOutput {
  const column = scan.set.column(spec.parameters.target);
  const buckets = bucketsByColumn(rows, column, scan.authors, scan.stamps, scan.scratch, depth).filter((b) => b.uniqueAuthors >= scan.bucketMin);
  buckets.sort((a, b) => b.interactions - a.interactions || (column.keys[a.code]! < column.keys[b.code]! ? -1 : 1));
  const results = buckets.slice(0, spec.parameters.threshold).map((b) => {
    const entry: AnalysisEntry = { key: column.keys[b.code]!, interactions: b.interactions, unique_authors: b.uniqueAuthors };
    if (spec.child) entry.child = freqDist(scan, b.rows, spec.child, depth + 1);
    return entry;
  });
  return { analysis_type: 'freqDist', parameters: { ...spec.parameters }, redacted: false, results };
}

/** Bucket starts are multiples of span × interval counted from the Unix epoch (months: calendar months). */
export function seriesBucket(ms: number, spec: TimeSeriesSpec): number {
  const { interval, span } = spec.parameters;
  if (interval === 'month') {
    const d = new Date(ms);
    const m = (d.getUTCFullYear() - 1970) * 12 + d.getUTCMonth();
    return Math.floor(m / span) * span;
  }
  return Math.floor(ms / (INTERVAL_MS[interval] * span));
}

export function seriesKey(bucket: number, spec: TimeSeriesSpec): number {
  const { interval, span } = spec.parameters;
  if (interval === 'month') return Date.UTC(1970 + Math.floor(bucket / 12), bucket % 12, 1) / 1000;
  return (bucket * INTERVAL_MS[interval] * span) / 1000;
}

function timeSeries(scan: Scan, rows: Int32Array, spec: TimeSeriesSpec, window: { from: number; to: number }): AnalysisOutput {
  const first = seriesBucket(window.from, spec);
  const last = seriesBucket(window.to - 1, spec);
  const times = scan.set.times.data;
  const codes = scan.scratch.take(CODES_SLOT, rows.length);
  for (let k = 0; k < rows.length; k++) codes[k] = seriesBucket(times[rows[k]!]!, spec) - first;
  const buckets = bucketsByCodes(rows, codes, last - first + 1, scan.authors, scan.stamps, scan.scratch, 0).filter((b) => b.uniqueAuthors >= scan.bucketMin);
  const results = buckets.map((b) => ({ key: seriesKey(b.code + first, spec), interactions: b.interactions, unique_authors: b.uniqueAuthors }));
  return { analysis_type: 'timeSeries', parameters: { ...spec.parameters }, redacted: false, results };
}

/** The query filter of a request, compiled with the query limits (400 naming the problem). */
export function queryFilterOf(request: AnalysisRequest): CompiledFilter | undefined {
  return request.filter === undefined ? undefined : compileFilter(request.filter, { kind: 'query' });
}

/**
 * Runs a validated request over a recording's index (`/insight/analyze`, analysis tasks). Everything
 * that can be refused is judged before the index is read.
 */
export async function runAnalysis(
  ctx: { recordingIndex: RecordingIndex; now: number; account: { package: AccountPackage } },
  recordingId: string,
  request: AnalysisRequest,
): Promise<AnalysisResult> {
  const window = analysisWindow(request, ctx.now);
  const filter = queryFilterOf(request);
  const index = await ctx.recordingIndex.caughtUp(ctx.now);
  return analyseSet(index.recording(recordingId), index.authorCount, request, window, filter, redactionOf(ctx.account.package), ctx.now);
}

/**
 * Runs a validated request over interactions the caller holds (an embedder's own data: exported for
 * them). The platform's endpoints analyse recordings through the recording index instead.
 */
export function analyseInteractions(items: { at: number; interaction: Interaction }[], request: AnalysisRequest, now: number, redaction: Redaction): AnalysisResult {
  const window = analysisWindow(request, now);
  const filter = queryFilterOf(request);
  const set = new RecordedSet();
  const codes = new Map<string, number>();
  let next = 0;
  for (const { at, interaction } of items) {
    const key = authorOf(interaction);
    let code = key === undefined ? undefined : codes.get(key);
    if (code === undefined) {
      code = next++;
      if (key !== undefined) codes.set(key, code);
    }
    set.add(at, code, interaction);
  }
  return analyseSet(set, next, request, window, filter, redaction, now);
}
