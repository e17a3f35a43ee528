import { ManualClock } from '@sdp/clock';
import { MemoryEventStore, createEngine, seededIds } from '@sdp/core';
import { runScenario, validateScenario } from '@sdp/sim';
import { opsPerSecond, type BenchReport } from './lib.ts';

/**
 * Issue 7's measure: a 30-day scenario of one account calling a cost-5 endpoint at the allowance's full
 * rate (10,000 credits an hour: 2,000 calls an hour, 1,440,000 calls), through the simulator, beside a
 * bare loop of the same `engine.call` with no scheduling, ledger or reports. Goal: under 10 seconds.
 */
export default async function simBench(): Promise<BenchReport> {
  const call = { version: '1.5' as const, endpoint: 'core.validate' as const, params: { csdl: 'interaction.content contains "coffee"' } };

  const clock = new ManualClock(Date.parse('2026-01-05T08:00:00Z'));
  const engine = createEngine({ store: new MemoryEventStore(), clock, ids: seededIds(1) });
  await engine.openAccount({ username: 'bench', api_key: 'bench-key-0001', package: { credits_per_hour: 1e12 } });
  const credentials = { username: 'bench', apiKey: 'bench-key-0001' };
  let bad = 0;
  const bare = await opsPerSecond(async () => {
    await clock.advance(1800);
    const a = await engine.call({ ...call, credentials });
    if (a.status !== 200) bad++;
  });
  if (bad > 0) throw new Error(`sim bench: ${bad} bare calls were not 200s`);

  const days = Number(process.env.SDP_SIM_BENCH_DAYS ?? 30);
  const scenario = validateScenario({
    name: 'full rate',
    duration: `${days}d`,
    accounts: [{ username: 'alice' }],
    actors: [{ ...call, schedule: { type: 'steady', rate: 2000, per: 'hour' } }],
  });
  const heapBefore = process.memoryUsage().heapUsed;
  const r = await runScenario(scenario);
  const heapAfter = process.memoryUsage().heapUsed;
  const t = r.totals[0]!;
  if (t.admitted !== days * 24 * 2000 || t.refusedRate !== 0) throw new Error(`sim bench: expected ${days * 24 * 2000} admitted and none refused, got ${t.admitted} and ${t.refusedRate}`);
  const seconds = r.wallMs / 1000;
  const callsPerSec = r.simulatedCalls / seconds;
  return {
    title: `sim: ${days} days of one account at full rate (${r.simulatedCalls.toLocaleString('en-US')} cost-5 calls, memory store, manual clock)`,
    baseline: { name: 'bare engine.call loop (core.validate, no scheduling)', opsPerSec: bare },
    subjects: [
      {
        name: 'simulated calls through runScenario',
        opsPerSec: callsPerSec,
        extra: {
          wall_s: seconds.toFixed(2),
          simulated_days_per_s: (days / seconds).toFixed(2),
          simulated_hours_per_s: ((days * 24) / seconds).toFixed(1),
          heap_growth_mb: ((heapAfter - heapBefore) / 1e6).toFixed(0),
        },
      },
    ],
    goal: { text: `${days} days of one account at full rate in under 10 s of wall time`, met: seconds < 10 },
  };
}
