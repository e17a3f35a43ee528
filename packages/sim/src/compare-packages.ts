import { availableParallelism } from 'node:os';
import { completePackage, type AccountPackage } from '@sdp/core';
import { runScenario, type SimFigures } from './run-scenario.ts';
import { PackagePool } from './package-pool.ts';
import type { Scenario } from './scenario.ts';
import { textTable } from './report-table.ts';
import { formatDuration } from './duration.ts';
import { cheapestServing, refusalsOf, savingsOf, smallestAllowance, type Headroom, type Saving, type ServingPackage, type SmallestAllowance } from './package-answer.ts';
import { money, priceOver, priceText, type Price } from './price.ts';

export interface PackageRun {
  name: string;
  package: AccountPackage;
  result: SimFigures;
  /** Every refusal the run met: rate limits, full task queues, stream charges, recording capacity. */
  refusals: number;
  /** The package's price, when the scenario gives one. */
  price: Price | null;
}

export interface Comparison {
  runs: PackageRun[];
  /** The smallest package (by the order below) under which nothing was refused; null when none. */
  smallestWithoutRefusals: string | null;
  /** What to buy: the cheapest package within the refusal budget, or the smallest allowance that would serve. */
  answer: PackageAnswer;
}

export interface PackageAnswer {
  /** Refusals a package may leave and still serve. */
  budget: number;
  cheapest: ServingPackage | null;
  /** What the cheapest saves against each other priced package (none when it has no price). */
  savings: Saving[];
  /** Found by search when no listed package serves (and the search was not turned off). */
  smallest: SmallestAllowance | null;
}

/** Packages ordered by what they allow: credits first, then analyze credits, task slots, capacity, recordings. */
export function packageOrder(a: AccountPackage, b: AccountPackage): number {
  return (
    a.credits_per_hour - b.credits_per_hour ||
    a.analyze_credits_per_hour - b.analyze_credits_per_hour ||
    a.task_slots - b.task_slots ||
    a.index_capacity_per_month - b.index_capacity_per_month ||
    a.concurrent_recordings - b.concurrent_recordings
  );
}

export interface CompareOptions {
  /**
   * Runs made at once, each on a worker thread: the packages, then the probes of the allowance search.
   * Default: every package at once (at least the machine's cores, at most 8), since runs of about the
   * same length sharing the cores end together, where taking turns leaves a core idle at the end (three
   * packages on two cores: half the work each, not two thirds). 1 runs everything on this thread.
   */
  threads?: number;
  /** Told of each package's progress (0..1), at most about ten times a second per package. */
  progress?: (name: string, done: number) => void;
  /** When no listed package serves, search for the smallest allowance that would (default true). */
  search?: boolean;
  /** Told of each run the search makes (its number and the package tried): a search takes a while. */
  probing?: (n: number, p: AccountPackage) => void;
}

/** Runs one scenario under each named package (every account gets it) and finds the smallest that suffices. */
export async function comparePackages(scenario: Scenario, names: string[], options: CompareOptions = {}): Promise<Comparison> {
  for (const name of names) if (!scenario.packages[name]) throw new Error(`no package named ${name}; packages are ${Object.keys(scenario.packages).join(', ')}`);
  const threads = Math.max(1, options.threads ?? Math.min(8, Math.max(availableParallelism(), names.length)));
  const pool = threads > 1 ? new PackagePool(scenario, threads) : undefined;
  const progressOf = (name: string) => (options.progress ? (done: number) => options.progress!(name, done) : undefined);
  try {
    let results: SimFigures[];
    if (pool) results = await Promise.all(names.map((name) => pool.run(name, scenario.packages[name]!, progressOf(name))));
    else {
      results = [];
      for (const name of names) results.push(await runHere(scenario, name, progressOf(name)));
    }
    const runs = names.map((name, i) => ({ name, package: completePackage(scenario.packages[name]!), result: results[i]!, refusals: refusalsOf(results[i]!), price: scenario.prices[name] ?? null }));
    const fine = runs.filter((r) => r.refusals === 0).sort((a, b) => packageOrder(a.package, b.package));
    const cheapest = cheapestServing(runs, scenario.prices, scenario.refusalBudget, packageOrder);
    let smallest: SmallestAllowance | null = null;
    if (!cheapest && options.search !== false && runs.length > 0) {
      const largest = [...runs].sort((a, b) => packageOrder(b.package, a.package))[0]!;
      smallest = await smallestAllowance(scenario, largest.package, scenario.refusalBudget, {
        baseRun: largest.result,
        ...(options.probing ? { probing: options.probing } : {}),
        ...(pool ? { run: (fields: AccountPackage) => pool.run('searched', fields), parallel: threads } : {}),
      });
    }
    const savings = savingsOf(cheapest, runs, scenario.prices, scenario.refusalBudget);
    return { runs, smallestWithoutRefusals: fine[0]?.name ?? null, answer: { budget: scenario.refusalBudget, cheapest, savings, smallest } };
  } finally {
    await pool?.close();
  }
}

async function runHere(scenario: Scenario, name: string, progress: ((done: number) => void) | undefined): Promise<SimFigures> {
  const { engine: _engine, ledger: _ledger, ...figures } = await runScenario(scenario, { packageOverride: { name, fields: scenario.packages[name]! }, ...(progress ? { progress } : {}) });
  return figures;
}

export function comparisonText(c: Comparison): string {
  const rows = c.runs.map((r) => {
    const t = r.result.totals;
    const sum = (f: (x: (typeof t)[number]) => number) => t.reduce((s, x) => s + f(x), 0);
    return [
      r.name,
      r.price ? priceText(r.price) : '',
      r.package.credits_per_hour,
      r.package.analyze_credits_per_hour,
      r.package.task_slots,
      r.package.index_capacity_per_month,
      sum((x) => x.calls),
      sum((x) => x.admitted),
      sum((x) => x.refusedRate),
      sum((x) => x.refusedQueue),
      sum((x) => x.refusedStream + x.refusedConnections),
      r.result.limitingDays.reduce((s, d) => s + d.refused, 0),
      formatDuration(sum((x) => x.rateLimitedSeconds) * 1000),
      r.refusals === 0 ? 'none' : 'yes',
    ];
  });
  const table = textTable(
    ['package', 'price', 'credits/h', 'analyze/h', 'slots', 'capacity/mo', 'calls', 'admitted', 'refused', 'queue full', 'stream refused', 'capacity refused', 'rate-limited', 'refusals'],
    rows,
  );
  return `${table}\n${answerLines(c).join('\n')}`;
}

const num = (x: number) => Math.round(x).toLocaleString('en-US');

function headroomText(h: Headroom): string {
  const pct = (peak: number, limit: number) => (limit > 0 ? `${((peak / limit) * 100).toFixed(0)} %` : 'n/a');
  return `peak ${num(h.peakCredits)} of ${num(h.creditsPerHour)} credits in an hour (${pct(h.peakCredits, h.creditsPerHour)}), analyze peak ${num(h.peakAnalyzeCredits)} of ${num(h.analyzeCreditsPerHour)} (${pct(h.peakAnalyzeCredits, h.analyzeCreditsPerHour)})`;
}

/**
 * The answer in sentences, the same in the terminal and the HTML: first what to buy, in one sentence
 * (the cheapest package that serves, its price, and what it saves against each other priced package),
 * then the headroom it leaves; or, when none serves, the smallest allowance that would.
 */
export function answerLines(c: Comparison): string[] {
  const a = c.answer;
  const within = a.budget > 0 ? `within the budget of ${num(a.budget)} refusals` : 'that admits everything';
  const out: string[] = [];
  if (a.cheapest) {
    out.push(answerSentence(c, within));
    // Said only where it names another package: with no prices and no budget it is the same answer.
    if (c.smallestWithoutRefusals && c.smallestWithoutRefusals !== a.cheapest.name) out.push(`smallest package with no refusals: ${c.smallestWithoutRefusals}`);
    out.push(`headroom under ${a.cheapest.name}: ${headroomText(a.cheapest.headroom)}`);
  } else {
    out.push(`no package compared serves (${within})`);
    if (a.smallest) {
      const raised = a.smallest.raised.map((x) => `${x.figure} ${num(x.from)} -> ${num(x.to)}`).join(', ');
      out.push(`smallest allowance that would: ${raised || 'the largest package as it is'}; it admits ${num(a.smallest.admitted)} of ${num(a.smallest.calls)} calls with ${num(a.smallest.refusals)} refusals (found in ${a.smallest.probes} runs)`);
    }
  }
  return out;
}

/** "plus at $1,000 a month", with the price over the cheapest's period beside it where the periods differ. */
function pricedName(name: string, p: Price, per: Price['per']): string {
  return `${name} at ${priceText(p)}${p.per !== per ? ` (${money(priceOver(p, per), p.currency)} a ${per})` : ''}`;
}

function answerSentence(c: Comparison, within: string): string {
  const a = c.answer;
  const best = a.cheapest!;
  const refused = best.refusals > 0 ? ` (${num(best.refusals)} refusals)` : '';
  if (!best.price) {
    const priced = c.runs.some((r) => r.price);
    return `${best.name} is the smallest package ${within}${refused}; ${priced ? 'it has no price, and no priced package serves' : 'no package compared has a price, so none is named by cost'}.`;
  }
  const per = best.price.per;
  const pct = (x: number) => `${Math.round(x)} %`;
  // Those that serve too first (what choosing the cheapest saves), then the cheaper ones that do not.
  const against = [...a.savings.filter((s) => s.serves), ...a.savings.filter((s) => !s.serves)].map((s) => {
    const other = pricedName(s.name, s.price, per);
    if (!s.serves) return `${other} costs ${s.amount < 0 ? 'less' : s.amount > 0 ? 'more' : 'the same'} but leaves ${num(s.refusals)} ${s.refusals === 1 ? 'refusal' : 'refusals'}`;
    // Another package that serves costs at least as much: the cheapest was chosen among them.
    if (s.amount <= 0) return `the same as ${other}`;
    return `${money(s.amount, best.price!.currency)} a ${per} (${pct(s.percent)}) less than ${other}`;
  });
  const unpriced = c.runs.filter((r) => r.name !== best.name && !r.price).map((r) => r.name);
  const tail = [...against, ...(unpriced.length > 0 ? [`${unpriced.join(', ')} ${unpriced.length === 1 ? 'has' : 'have'} no price`] : [])];
  return `Buy ${best.name} at ${priceText(best.price)}, the cheapest package ${within}${refused}${tail.length > 0 ? `: ${tail.join('; ')}` : ''}.`;
}
