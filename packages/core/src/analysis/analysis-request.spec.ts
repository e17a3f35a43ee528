import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { DomainError } from '../calls/errors.ts';
import { analysisWindow, validateAnalysisRequest } from './analysis-request.ts';

function refusal(raw: unknown): string {
  try {
    validateAnalysisRequest(raw);
  } catch (error) {
    if (error instanceof DomainError && error.status === 400) return error.message;
    throw error;
  }
  throw new Error(`accepted ${JSON.stringify(raw)}`);
}

const fd = (target: string, threshold: number, child?: unknown) => ({ analysis_type: 'freqDist', parameters: { target, threshold }, ...(child ? { child } : {}) });
const nest = (thresholds: number[], targets = ['fb.author.country', 'fb.author.age', 'fb.author.gender', 'fb.type']): unknown =>
  thresholds.reduceRight<unknown>((child, t, i) => fd(targets[i]!, t, child), undefined);

describe('analysis requests: every malformed request is a 400 saying what and where', () => {
  const cases: [string, unknown, RegExp][] = [
    ['not an object', 'x', /must be a JSON object/],
    ['no parameters', {}, /Missing param 'parameters'/],
    ['parameters not JSON', { parameters: '{nope' }, /parameters must be a JSON object \(it is not valid JSON\)/],
    ['no analysis type', { parameters: { parameters: {} } }, /parameters\.analysis_type is missing/],
    ['unknown analysis type', { parameters: { analysis_type: 'wordCount', parameters: {} } }, /analysis_type must be freqDist or timeSeries/],
    ['no target', { parameters: { analysis_type: 'freqDist', parameters: { threshold: 5 } } }, /parameters\.parameters\.target is missing/],
    ['unknown target', { parameters: fd('fb.author.shoe_size', 5) }, /fb\.author\.shoe_size/],
    ['text target', { parameters: fd('fb.content', 5) }, /cannot be analysed/],
    ['threshold not a number', { parameters: fd('fb.author.age', 'five' as unknown as number) }, /threshold must be a whole number/],
    ['threshold 0', { parameters: fd('fb.author.age', 0) }, /threshold must be at least 1/],
    ['threshold 201', { parameters: fd('fb.author.age', 201) }, /threshold must be at most 200/],
    ['child of high cardinality', { parameters: fd('fb.author.age', 5, fd('links.url', 5)) }, /parameters\.child\.parameters\.target.*child analysis target/],
    ['child timeSeries', { parameters: fd('fb.author.age', 5, { analysis_type: 'timeSeries', parameters: {} }) }, /child\.analysis_type must be freqDist/],
    ['four levels', { parameters: nest([2, 2, 2, 2]) }, /parameters\.child\.child\.child: .*at most 3 levels/],
    ['four levels, the fourth as text', { parameters: fd('fb.author.age', 2, fd('fb.author.gender', 2, fd('fb.type', 2, '[1]'))) }, /parameters\.child\.child\.child: .*at most 3 levels/],
    ['threshold product over 80,000', { parameters: nest([200, 200, 3]) }, /product of nested thresholds is 120000, over the limit of 80000/],
    ['skills product over 1,000', { parameters: fd('li.user.member.skills', 10, fd('li.user.member.seniority', 101)) }, /over the limit of 1000 for queries that analyse user skills/],
    ['timeSeries with a child', { parameters: { analysis_type: 'timeSeries', parameters: { interval: 'hour' }, child: fd('fb.author.age', 2) } }, /cannot have a child/],
    ['unknown interval', { parameters: { analysis_type: 'timeSeries', parameters: { interval: 'fortnight' } } }, /interval must be one of minute, hour, day, week, month/],
    ['span 0', { parameters: { analysis_type: 'timeSeries', parameters: { interval: 'hour', span: 0 } } }, /span must be at least 1/],
    ['span beyond the period', { parameters: { analysis_type: 'timeSeries', parameters: { interval: 'minute', span: 61 } } }, /span must be at most 60/],
    ['start after end', { parameters: fd('fb.author.age', 5), start: 200, end: 100 }, /Start cannot be after end/],
    ['start not a time', { parameters: fd('fb.author.age', 5), start: 'yesterday' }, /start must be a whole number/],
    ['filter not text', { parameters: fd('fb.author.age', 5), filter: 5 }, /filter must be a query filter/],
    ['hour series over 336 hours', { parameters: { analysis_type: 'timeSeries', parameters: { interval: 'hour' } }, start: 0, end: 336 * 3600 + 1 }, /interval hour covers at most 336 hours/],
    ['minute series over 60 minutes', { parameters: { analysis_type: 'timeSeries', parameters: { interval: 'minute' } }, start: 0, end: 3601 }, /at most 60 minutes/],
    ['day series over 32 days', { parameters: { analysis_type: 'timeSeries', parameters: { interval: 'day' } }, start: 0, end: 32 * 86400 + 1 }, /at most 32 days/],
    ['week series over 4 weeks', { parameters: { analysis_type: 'timeSeries', parameters: { interval: 'week' } }, start: 0, end: 28 * 86400 + 1 }, /at most 4 weeks/],
    ['month series over a month', { parameters: { analysis_type: 'timeSeries', parameters: { interval: 'month' } }, start: Date.UTC(2026, 1, 1) / 1000, end: Date.UTC(2026, 2, 1) / 1000 + 1 }, /at most 1 month/],
  ];
  for (const [name, raw, message] of cases) {
    it(`refuses: ${name}`, () => expect(refusal(raw)).toMatch(message));
  }

  it('accepts JSON text, numeric strings and empty optional values as clients send them', () => {
    const r = validateAnalysisRequest({ parameters: JSON.stringify(fd('fb.author.gender', '5' as unknown as number)), start: '', end: '', filter: '' });
    expect(r).toEqual({ parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.gender', threshold: 5 } } });
  });

  it('accepts each limit exactly at the limit', () => {
    expect(() => validateAnalysisRequest({ parameters: fd('fb.author.age', 200) })).not.toThrow();
    expect(() => validateAnalysisRequest({ parameters: nest([200, 200, 2]) })).not.toThrow();
    expect(() => validateAnalysisRequest({ parameters: fd('li.user.member.skills', 10, fd('li.user.member.seniority', 100)) })).not.toThrow();
    const series = (interval: string, seconds: number) => validateAnalysisRequest({ parameters: { analysis_type: 'timeSeries', parameters: { interval } }, start: 0, end: seconds });
    expect(() => series('minute', 3600)).not.toThrow();
    expect(() => series('hour', 336 * 3600)).not.toThrow();
    expect(() => series('day', 32 * 86400)).not.toThrow();
    expect(() => series('week', 28 * 86400)).not.toThrow();
  });

  test.prop([fc.array(fc.integer({ min: 1, max: 200 }), { minLength: 2, maxLength: 3 })])(
    'a nested request is accepted exactly when its threshold product is at most 80,000',
    (thresholds) => {
      const product = thresholds.reduce((a, b) => a * b, 1);
      const raw = { parameters: nest(thresholds) };
      if (product <= 80_000) expect(() => validateAnalysisRequest(raw)).not.toThrow();
      else expect(refusal(raw)).toMatch(/threshold/);
    },
  );

  test.prop([fc.constantFrom('minute', 'hour', 'day', 'week'), fc.integer({ min: 1, max: 2_000_000 })])(
    'without start or end a timeSeries covers exactly its longest period, ending now',
    (interval, nowSeconds) => {
      const req = validateAnalysisRequest({ parameters: { analysis_type: 'timeSeries', parameters: { interval } } });
      const w = analysisWindow(req, nowSeconds * 1000);
      const unit = { minute: 60, hour: 3600, day: 86400, week: 7 * 86400 }[interval]! * 1000;
      const units = { minute: 60, hour: 336, day: 32, week: 4 }[interval]!;
      expect(w).toEqual({ from: nowSeconds * 1000 - units * unit, to: nowSeconds * 1000 });
    },
  );

  it('a freqDist without start or end covers the last 24 hours', () => {
    const w = analysisWindow(validateAnalysisRequest({ parameters: fd('fb.author.age', 3) }), 100 * 86_400_000);
    expect(w).toEqual({ from: 99 * 86_400_000, to: 100 * 86_400_000 });
  });
});
