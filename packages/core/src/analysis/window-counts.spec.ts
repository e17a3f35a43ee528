import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import type { Interaction } from '../filters/index.ts';
import { RecordedSet } from '../recording-index/recording-index.ts';
import { validateAnalysisRequest } from './analysis-request.ts';
import { analyseSet, scanSet } from './run-analysis.ts';

const START = Date.UTC(2026, 0, 5, 8);
const HOUR = 3_600_000;

/** One step of a recording's life: rows arrive (in time order), time passes, someone asks. */
const step = fc.record({
  rows: fc.array(
    fc.record({
      author: fc.option(fc.integer({ min: 0, max: 9 }), { nil: undefined }),
      age: fc.option(fc.constantFrom('18-24', '25-34', '65+'), { nil: undefined }),
      topics: fc.array(fc.constantFrom('BMW', 'Audi', 'Coffee'), { maxLength: 3 }),
      gap: fc.integer({ min: 0, max: 3 * HOUR }),
    }),
    { maxLength: 8 },
  ),
  advance: fc.integer({ min: 0, max: 12 * HOUR }),
  /** Hours back a fixed window starts (a request with start/end), or undefined for the sliding default. */
  fixedStart: fc.option(fc.integer({ min: 1, max: 60 }), { nil: undefined }),
  target: fc.constantFrom('fb.author.age', 'fb.topics.name'),
  threshold: fc.integer({ min: 1, max: 4 }),
  redaction: fc.record({ audienceMin: fc.integer({ min: 0, max: 4 }), bucketMin: fc.integer({ min: 0, max: 2 }) }),
  retention: fc.boolean(),
});

describe('kept window counts', () => {
  test.prop([fc.array(step, { minLength: 1, maxLength: 25 })], { numRuns: 300 })(
    'answer exactly what a full scan of the same window answers, as the window slides, jumps back and rows expire',
    (steps) => {
      const set = new RecordedSet();
      const authors = new Map<string, number>();
      let now = START;
      let last = START;
      let n = 0;
      for (const s of steps) {
        for (const row of s.rows) {
          last = Math.min(now, last + row.gap);
          const fb: Record<string, unknown> = { author: { ...(row.age ? { age: row.age } : {}), ...(row.author !== undefined ? { id: `a${row.author}` } : {}) } };
          if (row.topics.length > 0) fb.topics = row.topics.map((name) => ({ name }));
          const key = row.author === undefined ? `anonymous-${n}` : `a${row.author}`;
          if (!authors.has(key)) authors.set(key, authors.size);
          set.add(last, authors.get(key)!, { interaction: { id: `i${n++}` }, fb } as Interaction);
        }
        now += s.advance;
        if (s.retention) set.dropBefore(now - 30 * HOUR);
        const raw: Record<string, unknown> = { parameters: { analysis_type: 'freqDist', parameters: { target: s.target, threshold: s.threshold } } };
        if (s.fixedStart !== undefined) Object.assign(raw, { start: Math.floor((now - s.fixedStart * HOUR) / 1000), end: Math.floor(now / 1000) });
        const req = validateAnalysisRequest(raw);
        const window = s.fixedStart !== undefined ? { from: req.start! * 1000, to: req.end! * 1000 } : { from: now - 24 * HOUR, to: now };
        expect(set.ordered).toBe(true);
        expect(analyseSet(set, authors.size, req, window, undefined, s.redaction, now)).toEqual(scanSet(set, authors.size, req, window, undefined, s.redaction, now));
      }
    },
  );
});
