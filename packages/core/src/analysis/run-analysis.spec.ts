import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { readTarget, compileFilter, type Interaction } from '../filters/index.ts';
import { authorOf } from '../recording-index/interaction-facts.ts';
import { RETENTION_MS } from '../recording-index/recording-index.ts';
import { analysisWindow, validateAnalysisRequest, type AnalysisRequest, type FreqDistSpec, type TimeSeriesSpec } from './analysis-request.ts';
import { analyseInteractions, seriesBucket, seriesKey, type AnalysisEntry, type AnalysisResult, type Redaction } from './run-analysis.ts';

const NOW = Date.UTC(2026, 5, 15, 12);
const DAY = 86_400_000;

/** Generated interactions: small value pools so buckets collide, authors shared, arrays with repeats. */
const interaction = fc.record(
  {
    author: fc.option(fc.integer({ min: 0, max: 12 }), { nil: undefined }),
    gender: fc.option(fc.constantFrom('male', 'female', 'unknown'), { nil: undefined }),
    age: fc.constantFrom('18-24', '25-34', '35-44', '65+'),
    topics: fc.array(fc.constantFrom('BMW', 'Audi', 'Coffee'), { maxLength: 3 }),
    type: fc.constantFrom('story', 'like', 'comment'),
    ago: fc.integer({ min: 0, max: 40 * DAY }),
  },
  { requiredKeys: ['age', 'topics', 'type', 'ago'] },
);

function build(g: { author?: number; gender?: string; age: string; topics: string[]; type: string; ago: number }, n: number) {
  const fb: Record<string, unknown> = { author: { age: g.age, ...(g.author !== undefined ? { id: `a${g.author}` } : {}), ...(g.gender ? { gender: g.gender } : {}) }, type: g.type };
  if (g.topics.length > 0) fb.topics = g.topics.map((name) => ({ name }));
  return { at: NOW - g.ago, interaction: { interaction: { id: `i${n}` }, fb } as Interaction };
}

/** The reference: sets and maps over plain objects, no columns, no typed arrays. */
function bruteForce(items: { at: number; interaction: Interaction }[], req: AnalysisRequest, redaction: Redaction): AnalysisResult {
  const { from, to } = analysisWindow(req, NOW);
  const filter = req.filter ? compileFilter(req.filter, { kind: 'query' }) : undefined;
  const sel = items.map((x, n) => ({ ...x, n })).filter((x) => x.at >= Math.max(from, NOW - RETENTION_MS) && x.at < to && (!filter || filter.match(x.interaction).matched));
  const who = (x: { interaction: Interaction; n: number }) => authorOf(x.interaction) ?? `anonymous-${x.n}`;
  const unique = new Set(sel.map(who)).size;
  const spec = req.parameters;
  if (unique < redaction.audienceMin || sel.length === 0) {
    return { interactions: 0, unique_authors: 0, analysis: { analysis_type: spec.analysis_type, parameters: { ...spec.parameters }, redacted: unique < redaction.audienceMin, results: [] } };
  }
  const freq = (rows: typeof sel, s: FreqDistSpec): AnalysisEntry[] => {
    const groups = new Map<string, typeof sel>();
    for (const x of rows) {
      const v = readTarget(x.interaction, s.parameters.target);
      const keys = new Set((Array.isArray(v) ? v : v === undefined || v === null ? [] : [v]).map(String));
      for (const k of keys) groups.set(k, [...(groups.get(k) ?? []), x]);
    }
    return [...groups]
      .map(([key, g]) => ({ key, g, authors: new Set(g.map(who)).size }))
      .filter((b) => b.authors >= redaction.bucketMin)
      .sort((a, b) => b.g.length - a.g.length || (a.key < b.key ? -1 : 1))
      .slice(0, s.parameters.threshold)
      .map((b) => ({
        key: b.key,
        interactions: b.g.length,
        unique_authors: b.authors,
        ...(s.child ? { child: { analysis_type: 'freqDist' as const, parameters: { ...s.child.parameters }, redacted: false, results: freq(b.g, s.child) } } : {}),
      }));
  };
  const series = (s: TimeSeriesSpec): AnalysisEntry[] => {
    const groups = new Map<number, typeof sel>();
    for (const x of sel) {
      const b = seriesBucket(x.at, s);
      groups.set(b, [...(groups.get(b) ?? []), x]);
    }
    return [...groups]
      .sort((a, b) => a[0] - b[0])
      .map(([b, g]) => ({ key: seriesKey(b, s), interactions: g.length, unique_authors: new Set(g.map(who)).size }))
      .filter((e) => e.unique_authors >= redaction.bucketMin);
  };
  const results = spec.analysis_type === 'freqDist' ? freq(sel, spec) : series(spec);
  return { interactions: sel.length, unique_authors: unique, analysis: { analysis_type: spec.analysis_type, parameters: { ...spec.parameters }, redacted: false, results } };
}

const target = fc.constantFrom('fb.author.gender', 'fb.author.age', 'fb.topics.name', 'fb.type');
const childTarget = fc.constantFrom('fb.author.gender', 'fb.author.age', 'fb.type');
const freqSpec = fc
  .tuple(target, fc.integer({ min: 1, max: 4 }), fc.option(fc.tuple(childTarget, fc.integer({ min: 1, max: 3 }), fc.option(fc.tuple(childTarget, fc.integer({ min: 1, max: 3 })), { nil: undefined })), { nil: undefined }))
  .map(([t, th, c]) => ({
    analysis_type: 'freqDist',
    parameters: { target: t, threshold: th },
    ...(c ? { child: { analysis_type: 'freqDist', parameters: { target: c[0], threshold: c[1] }, ...(c[2] ? { child: { analysis_type: 'freqDist', parameters: { target: c[2][0], threshold: c[2][1] } } } : {}) } } : {}),
  }));
const redaction = fc.record({ audienceMin: fc.integer({ min: 0, max: 6 }), bucketMin: fc.integer({ min: 0, max: 3 }) });
const window = fc.option(fc.tuple(fc.integer({ min: 0, max: 35 }), fc.integer({ min: 1, max: 10 })), { nil: undefined });
const filter = fc.option(fc.constantFrom('fb.author.gender == "male"', 'fb.type != "like"', 'fb.topics.name in "BMW,Audi"'), { nil: undefined });

describe('analysis agrees with a brute-force count over the same interactions', () => {
  test.prop([fc.array(interaction, { maxLength: 60 }), freqSpec, redaction, window, filter], { numRuns: 200 })(
    'freqDist, nested up to three levels, with redaction, windows and query filters',
    (gen, parameters, red, win, f) => {
      const items = gen.map(build);
      const raw: Record<string, unknown> = { parameters, ...(f ? { filter: f } : {}) };
      if (win) Object.assign(raw, { start: Math.floor((NOW - win[0] * DAY) / 1000), end: Math.floor((NOW - win[0] * DAY + win[1] * DAY) / 1000) });
      const req = validateAnalysisRequest(raw);
      expect(analyseInteractions(items, req, NOW, red)).toEqual(bruteForce(items, req, red));
    },
  );

  test.prop([fc.array(interaction, { maxLength: 60 }), fc.constantFrom('hour', 'day', 'week', 'month'), fc.integer({ min: 1, max: 3 }), redaction])(
    'timeSeries buckets, aligned to span × interval from the epoch',
    (gen, interval, span, red) => {
      const items = gen.map(build);
      const req = validateAnalysisRequest({ parameters: { analysis_type: 'timeSeries', parameters: { interval, span: interval === 'month' ? 1 : span } } });
      expect(analyseInteractions(items, req, NOW, red)).toEqual(bruteForce(items, req, red));
    },
  );
});
