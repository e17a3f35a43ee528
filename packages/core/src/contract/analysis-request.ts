import * as z from 'zod';
import { TO_ZOD, withReader } from './fast-read.ts';
import { checked, guarded, jsonValue, noneAs, whole, wireParams } from './wire.ts';

/**
 * An analysis request as clients send it (docs/clients.md#analysis, docs/analysis.md#the-request-validateanalysisrequestraw), as a
 * schema that says every limit of docs/contract.md#filter-and-analysis-limits the request alone decides
 * (the OpenAPI documents show it); a refusal is a 400 that names the offending field by its path. Which
 * targets exist is the target table's (`analysis/targets.ts`, judged after the reading), and the window's
 * end when none is given depends on the clock (`analysisWindow`).
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


/** A nested part of the request: an object, or JSON text of one; `null` is none. */
const part = <T extends z.ZodType>(inner: T, notObject: string) =>
  jsonValue(noneAs([null], inner), { notJson: 'must be a JSON object (it is not valid JSON)' }).meta({ description: notObject });

/** How a target is named (docs/filters.md#targets); which exist, and which may be a child, the target table says. */
export const TARGET_PATH = /^[a-z0-9_]+(\.[\p{L}\d_-]+)+$/u;

/** Queries that analyse user skills have a lower nested threshold product (docs/contract.md#filter-and-analysis-limits). */
export const isSkillsTarget = (target: string): boolean => /(^|\.)skills?(\.|$)/.test(target);

/** What is wrong with a target as named (not whether it exists: the target table says that). */
function targetProblem(t: unknown): string | undefined {
  if (typeof t !== 'string' || t.length === 0) return 'is missing: name the target to count';
  return TARGET_PATH.test(t) ? undefined : `: The target ${t} does not exist`;
}

const target = (asChild: boolean) =>
  withReader(
    z
      .unknown()
      .check((c) => {
        const problem = targetProblem(c.value);
        if (problem) c.issues.push({ code: 'custom', message: problem, input: c.value });
      })
      .transform((t) => t as string)
      .pipe(z.string())
      .meta({
        description: asChild ? 'An analysis target with fewer than 50 values (docs/filters.md#targets)' : 'An analysis target (docs/filters.md#targets)',
        examples: ['fb.author.gender'],
      }),
    (t) => (targetProblem(t) === undefined ? t : TO_ZOD),
  );

/** A whole number that may be left out (also as `null` or `''`): `fallback` then. */
const wholeOr = (fallback: number, opts: { min: number; max: number }) => noneAs([null, ''], whole(opts).default(fallback));

/** A freqDist at `level` (1: the parent): a child only below the third level, and only a freqDist. */
/** What the schema reads (its output is a `FreqDistSpec`; the levels below are typed by it). */
type FreqDistSchema = z.ZodObject<{ analysis_type: z.ZodLiteral<'freqDist'> }, z.core.$strip> & { _zod: { output: FreqDistSpec } };
function freqDistAt(level: number): FreqDistSchema {
  const child =
    level < MAX_NESTING_DEPTH
      ? guarded((v, ctx) => {
          if (v === undefined || v === null || typeof v !== 'object' || Array.isArray(v)) return v;
          const type = (v as Record<string, unknown>).analysis_type;
          if (type !== 'freqDist') {
            ctx.addIssue({ code: 'custom', message: 'must be freqDist: only frequency distributions nest', path: ['analysis_type'], input: type });
            return z.NEVER;
          }
          return v;
        }, part(z.lazy(() => freqDistAt(level + 1)), 'A nested frequency distribution (freqDist only)').optional())
      : z
          .unknown()
          .refine((v) => v === undefined || v === null, { message: `: nested frequency distributions go at most ${MAX_NESTING_DEPTH} levels deep (parent, child, grandchild)` })
          .transform(() => undefined)
          .pipe(z.undefined())
          .meta({ description: `None: nested frequency distributions go at most ${MAX_NESTING_DEPTH} levels deep` });
  return z
    .object({
      analysis_type: z.literal('freqDist'),
      parameters: part(
        z.object(
          { target: target(level > 1), threshold: wholeOr(MAX_FREQDIST_ELEMENTS, { min: 1, max: MAX_FREQDIST_ELEMENTS }).meta({ description: `How many values to show; ${MAX_FREQDIST_ELEMENTS} unless given` }) },
          { error: 'must be an object with target and threshold' },
        ),
        'The target to count and how many of its values to show',
      ),
      child: child.optional(),
    }) as unknown as FreqDistSchema;
}

const timeSeriesSpec = z
  .object({
    analysis_type: z.literal('timeSeries'),
    parameters: part(
      checked(
        z.object(
          {
            interval: noneAs([null, ''], z.enum(INTERVALS as [Interval, ...Interval[]], { error: `must be one of ${INTERVALS.join(', ')}` }).default('hour')),
            span: wholeOr(1, { min: 1, max: MAX_PERIOD.hour.units }).meta({ description: 'Intervals per bucket, at most the longest period of the interval in its units (60 minutes, 336 hours, 32 days, 4 weeks, 1 month); 1 unless given' }),
          },
          { error: 'must be an object with interval and span' },
        ),
        (c) => {
          const max = MAX_PERIOD[c.value.interval].units;
          if (c.value.span > max) c.issues.push({ code: 'custom', message: `must be at most ${max}`, path: ['span'], input: c.value.span });
        },
      ),
      'The bucket: an interval and how many of them',
    ).default({ interval: 'hour', span: 1 }),
    child: z
      .unknown()
      .refine((v) => v === undefined || v === null, { message: ': a timeSeries cannot have a child analysis' })
      .transform(() => undefined)
      .pipe(z.undefined())
      .optional()
      .meta({ description: 'None: a timeSeries cannot have a child analysis' }),
  });

/** The product of a nested freqDist's thresholds, with its lower limit where a target is about user skills. */
function productProblem(spec: AnalysisSpec): string | undefined {
  if (spec.analysis_type !== 'freqDist' || !spec.child) return undefined;
  let product = 1;
  let skills = false;
  for (let s: FreqDistSpec | undefined = spec; s; s = s.child) {
    product *= s.parameters.threshold;
    skills ||= isSkillsTarget(s.parameters.target);
  }
  const max = skills ? MAX_SKILLS_THRESHOLD_PRODUCT : MAX_THRESHOLD_PRODUCT;
  return product > max ? `: the product of nested thresholds is ${product}, over the limit of ${max}${skills ? ' for queries that analyse user skills' : ''}` : undefined;
}

/**
 * An analysis spec (`parameters` of the request): a freqDist (with its children) or a timeSeries,
 * checked against every limit that the spec alone decides; JSON text of one is read too.
 */
export const analysisSpecSchema = part(
  checked(
    guarded((v, ctx) => {
      if (typeof v !== 'object' || v === null || Array.isArray(v)) return v;
      const type = (v as Record<string, unknown>).analysis_type;
      if (type === undefined) ctx.addIssue({ code: 'custom', message: 'is missing: freqDist or timeSeries', path: ['analysis_type'], input: type });
      else if (type !== 'freqDist' && type !== 'timeSeries') ctx.addIssue({ code: 'custom', message: `must be freqDist or timeSeries, not ${JSON.stringify(type)}`, path: ['analysis_type'], input: type });
      else return v;
      return z.NEVER;
    }, z.discriminatedUnion('analysis_type', [freqDistAt(1), timeSeriesSpec], { error: 'must be a JSON object with analysis_type and parameters' })),
    (c) => {
      // Judged on a spec read without fault: zod runs this check after a refinement below has refused
      // (a fourth level given as text), and the spec then is not one.
      if (c.issues.length > 0) return;
      const problem = productProblem(c.value);
      if (problem) c.issues.push({ code: 'custom', message: problem, input: c.value });
    },
  ),
  'The analysis: `analysis_type` freqDist (with `parameters.target`, `parameters.threshold`, and an optional `child`) or timeSeries (with `parameters.interval`, `parameters.span`)',
).meta({ id: 'AnalysisSpec' });

/** The request's fields besides the spec: the query filter and the window, in epoch seconds. */
export const analysisWindowShape = {
  filter: z.string({ error: 'must be a query filter in the filter language (a string)' }).optional().meta({ description: 'A query filter in the filter language (docs/filters.md)' }),
  start: whole({ min: 0 }).optional().meta({ description: 'Unix seconds, inclusive' }),
  end: whole({ min: 0 }).optional().meta({ description: 'Unix seconds, exclusive' }),
};

/**
 * What the request's fields decide together: a window that runs forward, a timeSeries within its longest
 * period (written `: ...`, so a request nested in a task's `parameters` is named by that path).
 */
export function analysisRequestChecks(c: z.core.ParsePayload<{ parameters: AnalysisSpec; start?: number | undefined; end?: number | undefined }>): void {
  const { parameters, start, end } = c.value;
  const fail = (message: string): void => void c.issues.push({ code: 'custom', message, input: c.value });
  if (start !== undefined && end !== undefined && start > end) return fail(': Start cannot be after end');
  if (start !== undefined && end !== undefined && start === end) return fail(': start must be before end (start is inclusive, end exclusive)');
  if (parameters.analysis_type === 'timeSeries' && start !== undefined && end !== undefined) {
    const problem = periodProblem(parameters, start * 1000, end * 1000);
    if (problem) fail(`: ${problem}`);
  }
}

/**
 * A whole analysis request: `{parameters, filter?, start?, end?}` (times in epoch seconds, as numbers
 * or digit strings; empty values mean absent, as clients send them). The query filter's text is
 * checked when it is compiled (`compileFilter(text, {kind: 'query'})`).
 */
export const analysisRequestSchema = checked(wireParams({ parameters: analysisSpecSchema, ...analysisWindowShape }), analysisRequestChecks).meta({ id: 'AnalysisRequest' });

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

export function periodProblem(spec: TimeSeriesSpec, from: number, to: number): string | undefined {
  if (to <= maxEnd(spec, from)) return undefined;
  const { interval } = spec.parameters;
  return `a timeSeries with interval ${interval} covers at most ${MAX_PERIOD[interval].text}; start to end is longer`;
}

