import { compileFilter, type Interaction } from '@sdp/core';
import { opsPerSecondSync, type BenchReport, type BenchLine } from './lib.ts';

/**
 * Issue 12's measure: the patterns that froze the backtracking engine, matched against 10,000-character
 * lines by compiled filters (linear-time engine), each reported with its worst single match time. The
 * baseline is a plain `contains` over the same lines. When the native RE2 bindings are installed
 * (`npm i re2`, not a dependency: they need a C++ build), their times are printed beside.
 */
const LINE = 10_000;
const PATTERNS = ['^(a|a)*$', '(a|aa)*c', '(a?){25}a{25}', 'a*a*a*a*a*a*a*a*a*a*b', '(a+)+$', '(.*a){12}', '(x+x+)+y', '^(a|a?)+$', '((a|b)*(a|b)*)*c'];
const LINES = ['a'.repeat(LINE), 'a'.repeat(LINE - 1) + 'b', 'a'.repeat(LINE - 1) + 'c', `${'ab'.repeat(LINE / 2)}`];
const post = (content: string): Interaction => ({ interaction: { content }, fb: { content, type: 'story' } });
const POSTS = LINES.map(post);

function worstMs(run: (i: number) => unknown, n: number): number {
  let worst = 0;
  for (let k = 0; k < 3; k++) {
    for (let i = 0; i < n; i++) {
      const t = performance.now();
      run(i);
      worst = Math.max(worst, performance.now() - t);
    }
  }
  return worst;
}

async function nativeRe2(): Promise<(new (p: string) => { test(s: string): boolean }) | undefined> {
  const name = 're2';
  try {
    return ((await import(name)) as { default: new (p: string) => { test(s: string): boolean } }).default;
  } catch {
    return undefined;
  }
}

export default async function bench(): Promise<BenchReport> {
  const baseFilter = compileFilter('interaction.content contains "needle"');
  const baseline: BenchLine = {
    name: 'contains "needle" over 4 lines of 10,000 chars',
    opsPerSec: opsPerSecondSync(() => POSTS.forEach((p) => baseFilter.match(p)), 800, 10),
  };
  const Re2 = await nativeRe2();
  const subjects: BenchLine[] = [];
  let worstOverall = 0;
  for (const pattern of PATTERNS) {
    const f = compileFilter(`interaction.content regex_partial ${JSON.stringify(pattern)}`);
    const worst = worstMs((i) => f.match(POSTS[i]!), POSTS.length);
    worstOverall = Math.max(worstOverall, worst);
    const extra: Record<string, string | number> = { worst_ms: worst.toFixed(2), matched: POSTS.filter((p) => f.match(p).matched).length };
    if (Re2) {
      const re = new Re2(pattern);
      extra.re2_native_worst_ms = worstMs((i) => re.test(LINES[i]!), LINES.length).toFixed(3);
    }
    subjects.push({ name: `regex_partial ${pattern}`, opsPerSec: opsPerSecondSync(() => POSTS.forEach((p) => f.match(p)), 400, 1), extra });
  }
  return {
    title: 'Catastrophic regular expressions on 10,000-character lines (re2js)',
    baseline,
    subjects,
    goal: { text: `no single match holds the event loop for more than 50 ms (worst ${worstOverall.toFixed(2)} ms)`, met: worstOverall < 50 },
    notes: [Re2 ? 'native RE2 bindings found: their worst times are beside' : 'native RE2 bindings not installed (npm i re2 in a scratch copy to compare)'],
  };
}
