import { completePackage, type AccountPackage } from '@sdp/core';
import { runScenario, type RunOptions, type SimResult } from './run-scenario.ts';
import type { Scenario } from './scenario.ts';
import { textTable } from './report-table.ts';
import { formatDuration } from './duration.ts';

export interface PackageRun {
  name: string;
  package: AccountPackage;
  result: SimResult;
  /** Every refusal the run met: rate limits, full task queues, stream charges, recording capacity. */
  refusals: number;
}

export interface Comparison {
  runs: PackageRun[];
  /** The smallest package (by the order below) under which nothing was refused; null when none. */
  smallestWithoutRefusals: string | null;
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

/** Runs one scenario under each named package (every account gets it) and finds the smallest that suffices. */
export async function comparePackages(scenario: Scenario, names: string[], options: Omit<RunOptions, 'packageOverride'> = {}): Promise<Comparison> {
  const runs: PackageRun[] = [];
  for (const [i, name] of names.entries()) {
    const fields = scenario.packages[name];
    if (!fields) throw new Error(`no package named ${name}; packages are ${Object.keys(scenario.packages).join(', ')}`);
    const result = await runScenario(scenario, {
      ...options,
      packageOverride: { name, fields },
      ...(options.progress ? { progress: (f: number) => options.progress!((i + f) / names.length) } : {}),
    });
    const refusals =
      result.totals.reduce((s, t) => s + t.refusedRate + t.refusedQueue + t.refusedStream, 0) + result.limitingDays.reduce((s, d) => s + d.refused, 0);
    runs.push({ name, package: completePackage(fields), result, refusals });
  }
  const fine = runs.filter((r) => r.refusals === 0).sort((a, b) => packageOrder(a.package, b.package));
  return { runs, smallestWithoutRefusals: fine[0]?.name ?? null };
}

export function comparisonText(c: Comparison): string {
  const rows = c.runs.map((r) => {
    const t = r.result.totals;
    const sum = (f: (x: (typeof t)[number]) => number) => t.reduce((s, x) => s + f(x), 0);
    return [
      r.name,
      r.package.credits_per_hour,
      r.package.analyze_credits_per_hour,
      r.package.task_slots,
      r.package.index_capacity_per_month,
      sum((x) => x.calls),
      sum((x) => x.admitted),
      sum((x) => x.refusedRate),
      sum((x) => x.refusedQueue),
      sum((x) => x.refusedStream),
      r.result.limitingDays.reduce((s, d) => s + d.refused, 0),
      formatDuration(sum((x) => x.rateLimitedSeconds) * 1000),
      r.refusals === 0 ? 'none' : 'yes',
    ];
  });
  const table = textTable(
    ['package', 'credits/h', 'analyze/h', 'slots', 'capacity/mo', 'calls', 'admitted', 'refused', 'queue full', 'stream refused', 'capacity refused', 'rate-limited', 'refusals'],
    rows,
  );
  const answer = c.smallestWithoutRefusals
    ? `smallest package with no refusals: ${c.smallestWithoutRefusals}`
    : 'no package compared ran without refusals';
  return `${table}\n${answer}`;
}
