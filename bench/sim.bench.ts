import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ManualClock } from '@sdp/clock';
import { createEngine } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { comparePackages, parseScenario, runScenario, validateScenario } from '@sdp/sim';
import { profileShares } from './cpu-profile.ts';
import { opsPerSecond, type BenchReport } from './lib.ts';

const ANALYSIS = /core\/src\/(analysis|recording-index)\//;

/**
 * Issue 15's measures, beside a bare loop of `engine.call` (cost-5 `core.validate`, no scheduling, ledger
 * or reports) measured in the same run:
 * - examples/agency-week.yaml under its three packages, as `sdp sim` runs it (packages in parallel on
 *   worker threads): wall time, simulated calls a second, peak resident memory. Goal: under 10 s.
 * - one account calling at the allowance's full rate for 30 days (1,440,000 calls). Goal: under 10 s.
 * - the share of a CPU profile of one agency-week package spent in analysis and the recording index.
 */
export default async function simBench(): Promise<BenchReport[]> {
  const call = { version: '1.5' as const, endpoint: 'core.validate' as const, params: { csdl: 'interaction.content contains "coffee"' } };

  const bare = await bareLoop(call);
  const baseline = { name: 'bare engine.call loop (core.validate, no scheduling)', opsPerSec: bare };

  // 30 days first, on a heap that holds nothing of the other runs (the bare loop's store is garbage by
  // now), as a user's `sdp sim` starts in a fresh process. After agency-week in the same process, its
  // profiled run's data still on the heap, the collector's work made the same run much slower.
  const days = Number(process.env.SDP_SIM_BENCH_DAYS ?? 30);
  const scenario = validateScenario({
    name: 'full rate',
    duration: `${days}d`,
    accounts: [{ username: 'alice' }],
    actors: [{ ...call, schedule: { type: 'steady', rate: 2000, per: 'hour' } }],
  });
  const heapBefore = process.memoryUsage().heapUsed;
  const cpuBefore30 = process.cpuUsage();
  const r = await runScenario(scenario);
  const cpu30 = process.cpuUsage(cpuBefore30);
  const heapAfter = process.memoryUsage().heapUsed;
  const t = r.totals[0]!;
  if (t.admitted !== days * 24 * 2000 || t.refusedRate !== 0) throw new Error(`sim bench: expected ${days * 24 * 2000} admitted and none refused, got ${t.admitted} and ${t.refusedRate}`);
  const seconds = r.wallMs / 1000;

  // agency-week, its three packages at once, as the CLI runs them.
  const agency = parseScenario(readFileSync(fileURLToPath(new URL('../examples/agency-week.yaml', import.meta.url)), 'utf8'), 'agency-week.yaml');
  const started = performance.now();
  // CPU time of the whole process, worker threads included: on a shared machine it says more than wall time.
  const cpuBefore = process.cpuUsage();
  const c = await comparePackages(agency, agency.compare);
  const agencySeconds = (performance.now() - started) / 1000;
  const cpu = process.cpuUsage(cpuBefore);
  const agencyCpuSeconds = (cpu.user + cpu.system) / 1e6;
  const agencyCalls = c.runs.reduce((n, r) => n + r.result.simulatedCalls, 0);
  const peakRssMb = process.resourceUsage().maxRSS / 1024;

  // One package of it on this thread under the profiler: where the time goes.
  const standard = agency.packages.standard!;
  const profiled = await profileShares(() => runScenario(agency, { packageOverride: { name: 'standard', fields: standard } }), {
    analysis: ANALYSIS,
    firehose: /core\/src\/firehose\//,
  });

  return [
    {
      title: `sim: examples/agency-week.yaml under its ${c.runs.length} packages (${agencyCalls.toLocaleString('en-US')} simulated calls, packages in parallel on worker threads)`,
      baseline,
      subjects: [
        {
          name: 'agency-week, every package',
          opsPerSec: agencyCalls / agencySeconds,
          extra: { wall_s: agencySeconds.toFixed(2), cpu_s: agencyCpuSeconds.toFixed(1), peak_rss_mb: peakRssMb.toFixed(0) },
        },
        {
          name: 'agency-week, one package (standard) on this thread, profiled',
          opsPerSec: profiled.result.simulatedCalls / (profiled.result.wallMs / 1000),
          extra: {
            wall_s: (profiled.result.wallMs / 1000).toFixed(2),
            analysis_share: `${(profiled.shares.analysis! * 100).toFixed(1)}%`,
            firehose_share: `${(profiled.shares.firehose! * 100).toFixed(1)}%`,
          },
        },
      ],
      goal: { text: `agency-week's ${c.runs.length} packages in under 10 s of wall time`, met: agencySeconds < 10 },
      notes: [`top of the profile: ${profiled.top.slice(0, 6).join('; ')}`],
    },
    {
      title: `sim: ${days} days of one account at full rate (${r.simulatedCalls.toLocaleString('en-US')} cost-5 calls, memory store, manual clock)`,
      baseline,
      subjects: [
        {
          name: 'simulated calls through runScenario',
          opsPerSec: r.simulatedCalls / seconds,
          extra: {
            wall_s: seconds.toFixed(2),
            cpu_s: ((cpu30.user + cpu30.system) / 1e6).toFixed(1),
            simulated_days_per_s: (days / seconds).toFixed(2),
            heap_growth_mb: ((heapAfter - heapBefore) / 1e6).toFixed(0),
          },
        },
      ],
      goal: { text: `${days} days of one account at full rate in under 10 s of wall time`, met: seconds < 10 },
    },
  ];
}

/** `engine.call` alone in a loop, as fast as it goes: its engine and store are garbage once it returns. */
async function bareLoop(call: { version: '1.5'; endpoint: 'core.validate'; params: { csdl: string } }): Promise<number> {
  const clock = new ManualClock(Date.parse('2026-01-05T08:00:00Z'));
  const engine = createEngine({ store: new MemoryEventStore(), clock, ids: seededIds(1) });
  await engine.openAccount({ username: 'bench', api_key: 'bench-key-0001', package: { credits_per_hour: 1e12 } });
  const credentials = { username: 'bench', apiKey: 'bench-key-0001' };
  let bad = 0;
  const rate = await opsPerSecond(async () => {
    await clock.advance(1800);
    const a = await engine.call({ ...call, credentials });
    if (a.status !== 200) bad++;
  });
  if (bad > 0) throw new Error(`sim bench: ${bad} bare calls were not 200s`);
  return rate;
}
