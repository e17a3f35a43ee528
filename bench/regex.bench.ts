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

/**
 * The budget's worst case: a definition of `a.{900}b` rules at exactly FILTER_LIMITS.regexBudget
 * instructions, against 4 KB that passes re2js's prefilter and never matches (every pattern reads it all),
 * beside a plain definition over the same interaction in the same run.
 */
function budgetReport(): BenchReport {
  const rules = Array.from({ length: 4 }, (_, k) => `tag "t${k}" { interaction.content regex_partial "a.{900}b" }`);
  rules.push('tag "rest" { interaction.content regex_partial "a.{380}b" }');
  const worst = compileFilter(`${rules.join('\n')}\nreturn { interaction.content exists }`);
  const plain = compileFilter('tag "c" { interaction.content contains "coffee" }\nreturn { interaction.content exists }');
  const text = 'b' + 'ac'.repeat(2047) + 'a';
  const p = post(text);
  const worstOne = worstMs(() => worst.match(p), 3);
  return {
    title: `The regex budget's worst definition (${worst.regexInstructions} instructions) against one 4 KB interaction`,
    baseline: { name: 'plain definition (contains) × 4 KB interaction', opsPerSec: opsPerSecondSync(() => plain.match(p), 800, 10) },
    subjects: [{ name: 'worst allowed definition (4 × a.{900}b + a.{380}b) × 4 KB interaction', opsPerSec: opsPerSecondSync(() => worst.match(p), 3000, 1), extra: { worst_ms: worstOne.toFixed(1) } }],
    goal: { text: `one worst-case match holds the event loop under 500 ms (worst ${worstOne.toFixed(1)} ms)`, met: worstOne < 500 },
    notes: ["recording gives the event loop a turn every 500,000 characters × instructions (WORK_PER_TURN), inside one pattern's match too"],
  };
}

export default async function bench(): Promise<BenchReport[]> {
  return [await catastrophic(), budgetReport()];
}

async function catastrophic(): Promise<BenchReport> {
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
