import { BadRequest } from '../calls/errors.ts';
import { isJsonObject, wholeNumber } from '../calls/params.ts';
import { analysisTargetProblem, isSkillsTarget } from './targets.ts';

/**
 * An analysis request as clients send it (docs/clients.md#analysis, docs/analysis.md#the-request-validateanalysisrequestraw), checked against
 * every limit of docs/contract.md#filter-and-analysis-limits. Each refusal is a 400 that names the offending field by its path.
 */
export type Interval = 'minute' | 'hour' | 'day' | 'week' | 'month';
export const INTERVALS: readonly Interval[] = ['minute', 'hour', 'day', 'week', 'month'];

export interface FreqDistSpec {
  analysis_type: 'freqDist';
  parameters: { target: string; threshold: number };
  child?: FreqDistSpec;
}

export interface TimeSeriesSpec {
  analysis_type: 'timeSeries';
  parameters: { interval: Interval; span: number };
}

export type AnalysisSpec = FreqDistSpec | TimeSeriesSpec;

export interface AnalysisRequest {
  parameters: AnalysisSpec;
  /** A query filter (docs/filters.md), compiled when the analysis runs. */
  filter?: string;
  /** Epoch seconds: start inclusive, end exclusive. */
  start?: number;
  end?: number;
}

export const MAX_FREQDIST_ELEMENTS = 200;
export const MAX_NESTING_DEPTH = 3;
export const MAX_THRESHOLD_PRODUCT = 80_000;
export const MAX_SKILLS_THRESHOLD_PRODUCT = 1_000;

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Interval lengths in ms (a month is a calendar month; its nominal length here is only for `span`). */
export const INTERVAL_MS: Record<Interval, number> = { minute: MINUTE, hour: HOUR, day: DAY, week: 7 * DAY, month: 31 * DAY };

/** The longest period a timeSeries may cover per interval (docs/contract.md#filter-and-analysis-limits), in units of the interval. */
export const MAX_PERIOD: Record<Interval, { units: number; text: string }> = {
  minute: { units: 60, text: '60 minutes' },
  hour: { units: 336, text: '336 hours (2 weeks)' },
  day: { units: 32, text: '32 days' },
  week: { units: 4, text: '4 weeks' },
  month: { units: 1, text: '1 month' },
};


function parseJsonField(where: string, v: unknown): unknown {
  if (typeof v !== 'string') return v;
  try {
    return JSON.parse(v);
  } catch {
    throw new BadRequest(`${where} must be a JSON object (it is not valid JSON)`);
  }
}


function freqDist(where: string, raw: Record<string, unknown>, depth: number, targets: string[]): FreqDistSpec {
  const p = parseJsonField(`${where}.parameters`, raw.parameters);
  if (!isJsonObject(p)) throw new BadRequest(`${where}.parameters must be an object with target and threshold`);
  const target = p.target;
  if (typeof target !== 'string' || target.length === 0) throw new BadRequest(`${where}.parameters.target is missing: name the target to count`);
  const problem = analysisTargetProblem(target, depth > 1);
  if (problem) throw new BadRequest(`${where}.parameters.target: ${problem}`);
  const threshold = wholeNumber(`${where}.parameters.threshold`, p.threshold, { min: 1, max: MAX_FREQDIST_ELEMENTS }) ?? MAX_FREQDIST_ELEMENTS;
  targets.push(target);
  const spec: FreqDistSpec = { analysis_type: 'freqDist', parameters: { target, threshold } };
  if (raw.child !== undefined && raw.child !== null) {
    if (depth >= MAX_NESTING_DEPTH) {
      throw new BadRequest(`${where}.child: nested frequency distributions go at most ${MAX_NESTING_DEPTH} levels deep (parent, child, grandchild)`);
    }
    const child = parseJsonField(`${where}.child`, raw.child);
    if (!isJsonObject(child)) throw new BadRequest(`${where}.child must be an object`);
    if (child.analysis_type !== 'freqDist') throw new BadRequest(`${where}.child.analysis_type must be freqDist: only frequency distributions nest`);
    spec.child = freqDist(`${where}.child`, child, depth + 1, targets);
  }
  return spec;
}

function timeSeries(where: string, raw: Record<string, unknown>): TimeSeriesSpec {
  if (raw.child !== undefined && raw.child !== null) throw new BadRequest(`${where}.child: a timeSeries cannot have a child analysis`);
  const p = parseJsonField(`${where}.parameters`, raw.parameters ?? {});
  if (!isJsonObject(p)) throw new BadRequest(`${where}.parameters must be an object with interval and span`);
  const interval = p.interval ?? 'hour';
  if (typeof interval !== 'string' || !(INTERVALS as readonly string[]).includes(interval)) {
    throw new BadRequest(`${where}.parameters.interval must be one of ${INTERVALS.join(', ')}`);
  }
  const limit = MAX_PERIOD[interval as Interval];
  const span = wholeNumber(`${where}.parameters.span`, p.span, { min: 1, max: limit.units }) ?? 1;
  return { analysis_type: 'timeSeries', parameters: { interval: interval as Interval, span } };
}

/** Checks an analysis spec (`parameters` of the request): types, targets, 200 elements, depth 3, products. */
export function validateAnalysisSpec(raw: unknown, where = 'parameters'): AnalysisSpec {
  const value = parseJsonField(where, raw);
  if (!isJsonObject(value)) throw new BadRequest(`${where} must be a JSON object with analysis_type and parameters`);
  const type = value.analysis_type;
  if (type === 'freqDist') {
    const targets: string[] = [];
    const spec = freqDist(where, value, 1, targets);
    let product = 1;
    for (let s: FreqDistSpec | undefined = spec; s; s = s.child) product *= s.parameters.threshold;
    const skills = targets.some(isSkillsTarget);
    const max = skills ? MAX_SKILLS_THRESHOLD_PRODUCT : MAX_THRESHOLD_PRODUCT;
    if (spec.child && product > max) {
      throw new BadRequest(
        `${where}: the product of nested thresholds is ${product}, over the limit of ${max}${skills ? ' for queries that analyse user skills' : ''}`,
      );
    }
    return spec;
  }
  if (type === 'timeSeries') return timeSeries(where, value);
  if (type === undefined) throw new BadRequest(`${where}.analysis_type is missing: freqDist or timeSeries`);
  throw new BadRequest(`${where}.analysis_type must be freqDist or timeSeries, not ${JSON.stringify(type)}`);
}

/**
 * Checks a whole analysis request: `{parameters, filter?, start?, end?}` (times in epoch seconds, as
 * numbers or digit strings; empty strings mean absent, as clients send them). The query filter's text
 * is checked when it is compiled (`compileFilter(text, {kind: 'query'})`).
 */
export function validateAnalysisRequest(raw: unknown): AnalysisRequest {
  if (!isJsonObject(raw)) throw new BadRequest('the analysis request must be a JSON object');
  if (raw.parameters === undefined || raw.parameters === null || raw.parameters === '') throw new BadRequest("Missing param 'parameters'");
  const parameters = validateAnalysisSpec(raw.parameters);
  const start = wholeNumber('start', raw.start, { min: 0 });
  const end = wholeNumber('end', raw.end, { min: 0 });
  if (start !== undefined && end !== undefined && start > end) throw new BadRequest('Start cannot be after end');
  if (start !== undefined && end !== undefined && start === end) throw new BadRequest('start must be before end (start is inclusive, end exclusive)');
  let filter: string | undefined;
  if (raw.filter !== undefined && raw.filter !== null && raw.filter !== '') {
    if (typeof raw.filter !== 'string') throw new BadRequest('filter must be a query filter in the filter language (a string)');
    filter = raw.filter;
  }
  const out: AnalysisRequest = { parameters };
  if (filter !== undefined) out.filter = filter;
  if (start !== undefined) out.start = start;
  if (end !== undefined) out.end = end;
  if (parameters.analysis_type === 'timeSeries' && start !== undefined && end !== undefined) checkPeriod(parameters, start * 1000, end * 1000);
  return out;
}

/** One calendar month after `ms` (UTC), the day clamped to the month's length. */
export function addMonthUtc(ms: number, months: number): number {
  const d = new Date(ms);
  const y = d.getUTCFullYear();
  const m = d.getUTCMonth() + months;
  const last = new Date(Date.UTC(y, m + 1, 0)).getUTCDate();
  return Date.UTC(y, m, Math.min(d.getUTCDate(), last), d.getUTCHours(), d.getUTCMinutes(), d.getUTCSeconds(), d.getUTCMilliseconds());
}

function maxEnd(spec: TimeSeriesSpec, from: number): number {
  const { interval } = spec.parameters;
  return interval === 'month' ? addMonthUtc(from, MAX_PERIOD.month.units) : from + MAX_PERIOD[interval].units * INTERVAL_MS[interval];
}

function checkPeriod(spec: TimeSeriesSpec, from: number, to: number): void {
  if (to > maxEnd(spec, from)) {
    const { interval } = spec.parameters;
    throw new BadRequest(`a timeSeries with interval ${interval} covers at most ${MAX_PERIOD[interval].text}; start to end is longer`);
  }
}

/**
 * The window an analysis covers, in ms (docs/analysis.md#the-request-validateanalysisrequestraw): start inclusive, end exclusive; no end
 * means until now; neither means the last 24 hours for freqDist and the longest period of the interval
 * for timeSeries.
 */
export function analysisWindow(req: AnalysisRequest, now: number): { from: number; to: number } {
  const spec = req.parameters;
  let to = req.end !== undefined ? req.end * 1000 : now;
  let from: number;
  if (req.start !== undefined) from = req.start * 1000;
  else if (spec.analysis_type === 'timeSeries') {
    const { interval } = spec.parameters;
    from = interval === 'month' ? addMonthUtc(to, -1) : to - MAX_PERIOD[interval].units * INTERVAL_MS[interval];
  } else from = to - DAY;
  if (from >= to) {
    if (req.start !== undefined && req.end === undefined) throw new BadRequest('start must be before now when no end is given');
    throw new BadRequest('Start cannot be after end');
  }
  if (spec.analysis_type === 'timeSeries') checkPeriod(spec, from, to);
  if (to < from) to = from;
  return { from, to };
}
