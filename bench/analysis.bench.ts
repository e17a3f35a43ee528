import { type Interaction } from '@sdp/core';
import { RecordedSet } from '@sdp/core/internal';
// The analysis machinery itself, measured from its sources: @sdp/core does not export it.
import { validateAnalysisRequest } from '../packages/core/src/analysis/analysis-request.ts';
import { analyseSet } from '../packages/core/src/analysis/run-analysis.ts';
import { firehoseMinute } from '../packages/core/src/firehose/synthetic-interactions.ts';
import { authorOf } from '../packages/core/src/recording-index/interaction-facts.ts';
import { opsPerSecond, type BenchReport } from './lib.ts';

/**
 * Issue 4's analysis measure: a freqDist and a 3-level nested freqDist over 1,000,000 recorded
 * interactions of the synthetic firehose, each beside a plain loop that counts the same targets over the
 * same interactions (a Map per level, reading the nested JSON), in the same run.
 * Goal: a freqDist over one million interactions in well under a second.
 */
const N = 1_000_000;
const NOW = Date.UTC(2026, 5, 1);

function recorded(): { set: RecordedSet; authors: number } {
  const set = new RecordedSet();
  const codes = new Map<string, number>();
  const perMinute = 1000;
  for (let m = 0; set.size < N; m++) {
    for (const i of firehoseMinute(42, 'facebook', Math.floor((NOW - 20 * 86_400_000) / 60_000) + m, perMinute)) {
      const key = authorOf(i) ?? `anonymous-${set.size}`;
      let code = codes.get(key);
      if (code === undefined) codes.set(key, (code = codes.size));
      set.add(((i.interaction as { created_at: number }).created_at) * 1000, code, i);
      if (set.size === N) break;
    }
  }
  return { set, authors: codes.size };
}

const get = (i: Interaction, a: string, b: string, c: string): unknown => ((i[a] as Record<string, Record<string, unknown>> | undefined)?.[b])?.[c];

export default async function analysisBench(): Promise<BenchReport[]> {
  const built = performance.now();
  const { set, authors } = recorded();
  const buildMs = performance.now() - built;
  const window = { from: 0, to: NOW + 1 };
  const redaction = { audienceMin: 1000, bucketMin: 100 };
  const flat = validateAnalysisRequest({ parameters: { analysis_type: 'freqDist', parameters: { target: 'fb.author.country', threshold: 200 } } });
  const nested = validateAnalysisRequest({
    parameters: {
      analysis_type: 'freqDist',
      parameters: { target: 'fb.author.country', threshold: 20 },
      child: { analysis_type: 'freqDist', parameters: { target: 'fb.author.age', threshold: 10 }, child: { analysis_type: 'freqDist', parameters: { target: 'fb.author.gender', threshold: 3 } } },
    },
  });
  // The first analysis of a target builds its column: measured once, apart.
  const cold = performance.now();
  const first = analyseSet(set, authors, flat, window, undefined, redaction, NOW);
  const coldMs = performance.now() - cold;
  analyseSet(set, authors, nested, window, undefined, redaction, NOW);
  if (first.interactions !== N || first.analysis.results.length === 0) throw new Error('analysis bench: the freqDist did not see every interaction');

  let sink = 0;
  const docs = set.docs;
  const plainFlat = await opsPerSecond(() => {
    const counts = new Map<string, number>();
    for (let r = 0; r < docs.length; r++) {
      const v = get(docs[r]!, 'fb', 'author', 'country');
      if (typeof v === 'string') counts.set(v, (counts.get(v) ?? 0) + 1);
    }
    sink += counts.size;
  }, 3000, 1);
  const flatRate = await opsPerSecond(() => {
    sink += analyseSet(set, authors, flat, window, undefined, redaction, NOW).analysis.results.length;
  }, 3000, 1);
  const plainNested = await opsPerSecond(() => {
    const counts = new Map<string, Map<string, Map<string, number>>>();
    for (let r = 0; r < docs.length; r++) {
      const d = docs[r]!;
      const c = get(d, 'fb', 'author', 'country') as string;
      const a = get(d, 'fb', 'author', 'age') as string;
      const g = get(d, 'fb', 'author', 'gender') as string;
      let m1 = counts.get(c);
      if (!m1) counts.set(c, (m1 = new Map()));
      let m2 = m1.get(a);
      if (!m2) m1.set(a, (m2 = new Map()));
      m2.set(g, (m2.get(g) ?? 0) + 1);
    }
    sink += counts.size;
  }, 3000, 1);
  const nestedRate = await opsPerSecond(() => {
    sink += analyseSet(set, authors, nested, window, undefined, redaction, NOW).analysis.results.length;
  }, 3000, 1);
  if (sink === 0) throw new Error('analysis bench: nothing counted');
  const ms = (rate: number) => `${(1000 / rate).toFixed(1)} ms`;
  return [
    {
      title: `analysis: freqDist over ${N.toLocaleString('en-US')} recorded interactions (fb.author.country, threshold 200, unique authors per bucket)`,
      baseline: { name: 'plain loop: count one target into a Map (no authors)', opsPerSec: plainFlat, extra: { 'per pass': ms(plainFlat) } },
      subjects: [{ name: 'analyseSet freqDist (columns warm)', opsPerSec: flatRate, extra: { 'per analysis': ms(flatRate), 'first (builds column)': `${coldMs.toFixed(0)} ms` } }],
      goal: { text: 'a freqDist over one million interactions in well under a second (< 250 ms)', met: 1000 / flatRate < 250 },
      notes: [`building 1M firehose interactions into the index took ${(buildMs / 1000).toFixed(1)} s; ${authors.toLocaleString('en-US')} distinct authors`],
    },
    {
      title: `analysis: 3-level nested freqDist over ${N.toLocaleString('en-US')} recorded interactions (country 20 > age 10 > gender 3)`,
      baseline: { name: 'plain loop: count three targets into nested Maps (no authors)', opsPerSec: plainNested, extra: { 'per pass': ms(plainNested) } },
      subjects: [{ name: 'analyseSet nested freqDist (columns warm)', opsPerSec: nestedRate, extra: { 'per analysis': ms(nestedRate) } }],
    },
  ];
}
