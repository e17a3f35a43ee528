import { BadRequest } from '../calls/errors.ts';
import { addMonthUtc, analysisRequestSchema, INTERVAL_MS, MAX_PERIOD, periodProblem, type AnalysisRequest, type AnalysisSpec, type FreqDistSpec, type TimeSeriesSpec } from '../contract/analysis-request.ts';
import { readParams } from '../contract/read.ts';
import { analysisTargetProblem } from './targets.ts';

/**
 * An analysis request as clients send it (docs/clients.md#analysis, docs/analysis.md#the-request-validateanalysisrequestraw): its
 * schema (`contract/analysis-request.ts`) says every limit the request alone decides; here what the
 * target table decides (which targets exist and may be counted, and which may be a child) and what the
 * clock decides (the window).
 */
export {
  INTERVALS,
  INTERVAL_MS,
  MAX_FREQDIST_ELEMENTS,
  MAX_NESTING_DEPTH,
  MAX_PERIOD,
  MAX_SKILLS_THRESHOLD_PRODUCT,
  MAX_THRESHOLD_PRODUCT,
  addMonthUtc,
  type AnalysisRequest,
  type AnalysisSpec,
  type FreqDistSpec,
  type Interval,
  type TimeSeriesSpec,
} from '../contract/analysis-request.ts';

const DAY = 86_400_000;

/**
 * Refuses a freqDist target the target table does not let analysis count (or count as a child), naming
 * it by its path under `where` (the spec's own path in the call: `parameters` for `/insight/analyze`,
 * `parameters.parameters` in a task).
 */
export function checkAnalysisTargets(spec: AnalysisSpec, where: string): void {
  let path = where;
  let depth = 1;
  for (let s: FreqDistSpec | undefined = spec.analysis_type === 'freqDist' ? spec : undefined; s; s = s.child, depth++, path += '.child') {
    const problem = analysisTargetProblem(s.parameters.target, depth > 1);
    if (problem) throw new BadRequest(`${path}.parameters.target: ${problem}`);
  }
}

/** Reads a stored or given analysis request through its schema (a 400 naming the field by its path). */
export function validateAnalysisRequest(raw: unknown): AnalysisRequest {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new BadRequest('the analysis request must be a JSON object');
  const r = readParams(analysisRequestSchema, raw as Record<string, unknown>);
  checkAnalysisTargets(r.parameters, 'parameters');
  return { parameters: r.parameters, ...(r.filter !== undefined ? { filter: r.filter } : {}), ...(r.start !== undefined ? { start: r.start } : {}), ...(r.end !== undefined ? { end: r.end } : {}) };
}

function checkPeriod(spec: TimeSeriesSpec, from: number, to: number): void {
  const problem = periodProblem(spec, from, to);
  if (problem) throw new BadRequest(problem);
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
