import { completePackage, type AccountPackage } from '@sdp/core';
import { runScenario, type SimFigures } from './run-scenario.ts';
import type { Scenario } from './scenario.ts';
import { priceOver, type Price } from './price.ts';

/** Every refusal a run met: rate limits, full task queues, stream charges and connections, recording capacity. */
export function refusalsOf(r: SimFigures): number {
  return r.totals.reduce((s, t) => s + t.refusedRate + t.refusedQueue + t.refusedStream + t.refusedConnections, 0) + r.limitingDays.reduce((s, d) => s + d.refused, 0);
}

/** The most credits any account was charged in any one hour, against what the package allows an hour. */
export interface Headroom {
  peakCredits: number;
  creditsPerHour: number;
  peakAnalyzeCredits: number;
  analyzeCreditsPerHour: number;
}

export function headroomOf(r: SimFigures, p: AccountPackage): Headroom {
  let peakCredits = 0;
  let peakAnalyzeCredits = 0;
  for (const h of r.hours) {
    let charged = 0;
    for (const v of Object.values(h.credits)) charged += v;
    peakCredits = Math.max(peakCredits, charged);
    peakAnalyzeCredits = Math.max(peakAnalyzeCredits, h.analyzeCredits);
  }
  return { peakCredits, creditsPerHour: p.credits_per_hour, peakAnalyzeCredits, analyzeCreditsPerHour: p.analyze_credits_per_hour };
}

export interface ServingPackage {
  name: string;
  price: Price | null;
  refusals: number;
  headroom: Headroom;
}

/**
 * The cheapest of the runs whose refusals stay within the budget: by price where the scenario gives
 * one (a priced package before an unpriced one; a year's price is twelve months'), then by what the
 * package allows.
 */
export function cheapestServing(
  runs: { name: string; package: AccountPackage; result: SimFigures; refusals: number }[],
  prices: Record<string, Price>,
  budget: number,
  order: (a: AccountPackage, b: AccountPackage) => number,
): ServingPackage | null {
  const monthly = (name: string) => (prices[name] ? priceOver(prices[name], 'month') : Infinity);
  const fine = runs.filter((r) => r.refusals <= budget);
  fine.sort((a, b) => monthly(a.name) - monthly(b.name) || order(a.package, b.package));
  const best = fine[0];
  if (!best) return null;
  return { name: best.name, price: prices[best.name] ?? null, refusals: best.refusals, headroom: headroomOf(best.result, best.package) };
}

/** What the cheapest package that serves saves against another priced package of the comparison. */
export interface Saving {
  name: string;
  price: Price;
  refusals: number;
  /** Whether it serves too (its refusals within the budget); one that does not is no alternative. */
  serves: boolean;
  /** The other's price less the cheapest's, in the cheapest's currency and period (negative: it costs less). */
  amount: number;
  /** `amount` as a share of the other's price, in percent (0 when that price is 0). */
  percent: number;
}

/** Against each other priced package, in the order of the runs; none when the cheapest has no price. */
export function savingsOf(cheapest: ServingPackage | null, runs: { name: string; refusals: number }[], prices: Record<string, Price>, budget: number): Saving[] {
  const own = cheapest?.price;
  if (!cheapest || !own) return [];
  const out: Saving[] = [];
  for (const r of runs) {
    const price = prices[r.name];
    if (r.name === cheapest.name || !price) continue;
    const other = priceOver(price, own.per);
    const amount = other - own.amount;
    out.push({ name: r.name, price, refusals: r.refusals, serves: r.refusals <= budget, amount, percent: other > 0 ? (amount / other) * 100 : 0 });
  }
  return out;
}

/** The package figures a search may raise, each for the refusals it answers. */
export type SearchedFigure = 'credits_per_hour' | 'analyze_credits_per_hour' | 'task_slots' | 'index_capacity_per_month' | 'stream_connections';

/** Which figures refused in a run: the general or analyze allowance, the task queue, recording capacity, stream connections. */
export function refusingFigures(r: SimFigures): SearchedFigure[] {
  const sum = (f: (h: SimFigures['hours'][number]) => number) => r.hours.reduce((s, h) => s + f(h), 0);
  const out: SearchedFigure[] = [];
  const rate = sum((h) => h.refusedRate);
  const analyzeLimited = sum((h) => h.analyzeLimitedSeconds) > 0;
  if (sum((h) => h.refusedStream) > 0 || sum((h) => h.rateLimitedSeconds) > 0 || (rate > 0 && !analyzeLimited)) out.push('credits_per_hour');
  if (rate > 0 && analyzeLimited) out.push('analyze_credits_per_hour');
  if (sum((h) => h.refusedQueue) > 0) out.push('task_slots');
  if (r.limitingDays.some((d) => d.refused > 0)) out.push('index_capacity_per_month');
  if (sum((h) => h.refusedConnections) > 0) out.push('stream_connections');
  return out;
}

export interface SmallestAllowance {
  /** The package found: the starting package with the searched figures raised. */
  package: AccountPackage;
  /** The figures raised, from what to what. */
  raised: { figure: SearchedFigure; from: number; to: number }[];
  calls: number;
  admitted: number;
  refusals: number;
  /** Runs the search made (the comparison's own run of the starting package is not one of them). */
  probes: number;
}

type Runner = (fields: AccountPackage) => Promise<SimFigures>;

/**
 * When no listed package serves: starting from `base` (the largest listed), doubles the figures that
 * refused until the scenario runs within the budget, then bisects each figure down to the smallest
 * whole value that still does (the others held where the doubling left them), trying the peak hour's
 * charge and the figure below it first. Refusals fall as a figure rises, which is what makes bisection
 * sound. `null` when twenty doublings are not enough. With `parallel` above 1 (and a `run` that runs
 * on other threads), the hint's two figures are tried at once and each bisection step tries that many
 * figures at once, splitting what is left into that many plus one parts: fewer rounds, the same answer.
 */
export async function smallestAllowance(
  scenario: Scenario,
  base: AccountPackage,
  budget: number,
  options: {
    run?: Runner;
    probing?: (n: number, p: AccountPackage) => void;
    parallel?: number;
    /** The scenario's run under `base`, when it was already made (a comparison has it): not run again. */
    baseRun?: SimFigures;
  } = {},
): Promise<SmallestAllowance | null> {
  const run = options.run ?? inThread(scenario);
  const parallel = Math.max(1, options.parallel ?? 1);
  let probes = 0;
  const probe = async (p: AccountPackage) => {
    probes++;
    options.probing?.(probes, p);
    const r = await run(p);
    return { r, refusals: refusalsOf(r) };
  };
  let high = { ...base };
  const figures = new Set<SearchedFigure>();
  let last = options.baseRun ? { r: options.baseRun, refusals: refusalsOf(options.baseRun) } : await probe(high);
  for (let round = 0; last.refusals > budget; round++) {
    if (round >= 20) return null;
    for (const f of refusingFigures(last.r)) figures.add(f);
    if (figures.size === 0) return null;
    high = { ...high };
    for (const f of figures) high[f] = Math.max(1, high[f] * 2);
    last = await probe(high);
  }
  let found = last;
  for (const f of figures) {
    // `low` fails (or is the base figure, untried with the others raised); `high[f]` serves.
    let low = base[f] - 1;
    // The most credits charged in an hour where nothing was refused is usually the answer exactly:
    // trying it and the figure below first spares most of the bisection (which then has nothing left).
    const hint = f === 'credits_per_hour' ? headroomOf(found.r, high).peakCredits : f === 'analyze_credits_per_hour' ? headroomOf(found.r, high).peakAnalyzeCredits : undefined;
    const tries = hint !== undefined && hint > low && hint < high[f] ? [hint, hint - 1] : [];
    const step = async (mid: number) => {
      const attempt = await probe({ ...high, [f]: mid });
      if (attempt.refusals <= budget) {
        high = { ...high, [f]: mid };
        found = attempt;
      } else low = mid;
    };
    /** Tries figures between `low` and `high[f]` at once; the smallest that serves is the new high. */
    const stepMany = async (mids: number[]) => {
      const attempts = await Promise.all(mids.map((mid) => probe({ ...high, [f]: mid })));
      const first = attempts.findIndex((a) => a.refusals <= budget);
      if (first >= 0) {
        high = { ...high, [f]: mids[first]! };
        found = attempts[first]!;
      }
      // Refusals fall as the figure rises: every figure tried below the first that serves fails.
      const failing = first >= 0 ? mids.slice(0, first) : mids;
      if (failing.length > 0) low = Math.max(low, failing[failing.length - 1]!);
    };
    if (parallel > 1) {
      const within = tries.filter((mid) => mid > low && mid < high[f]).sort((a, b) => a - b);
      if (within.length > 0) await stepMany(within);
    } else for (const mid of tries) if (mid > low && mid < high[f]) await step(mid);
    while (high[f] - low > 1) {
      if (parallel > 1) {
        await stepMany(splitPoints(low, high[f], parallel));
        continue;
      }
      const mid = Math.floor((low + high[f]) / 2);
      const attempt = await probe({ ...high, [f]: mid });
      if (attempt.refusals <= budget) {
        high = { ...high, [f]: mid };
        found = attempt;
      } else low = mid;
    }
  }
  return {
    package: high,
    raised: [...figures].map((figure) => ({ figure, from: base[figure], to: high[figure] })).filter((x) => x.to !== x.from),
    calls: found.r.totals.reduce((s, t) => s + t.calls, 0),
    admitted: found.r.totals.reduce((s, t) => s + t.admitted, 0),
    refusals: found.refusals,
    probes,
  };
}

/** Up to `n` whole figures strictly between `low` and `high`, splitting the gap into `n + 1` even parts. */
export function splitPoints(low: number, high: number, n: number): number[] {
  const gap = high - low;
  if (gap - 1 <= n) return Array.from({ length: gap - 1 }, (_, k) => low + 1 + k);
  const out: number[] = [];
  for (let k = 1; k <= n; k++) {
    const x = low + Math.floor((gap * k) / (n + 1));
    if (x > low && x < high && x !== out[out.length - 1]) out.push(x);
  }
  return out;
}

function inThread(scenario: Scenario): Runner {
  return async (fields) => {
    const { engine: _engine, ledger: _ledger, ...figures } = await runScenario(scenario, { packageOverride: { name: 'searched', fields: completePackage(fields) } });
    return figures;
  };
}
