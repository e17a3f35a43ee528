import { produce } from 'immer';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { Engine, forgettableCharge } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { ManualClock } from '@sdp/clock';
import { opsPerSecond, opsPerSecondSync, type BenchReport } from './lib.ts';

/**
 * Issue 2's measure: charged calls per second through `engine.call` on the memory store and the manual
 * clock, beside one immer `produce` of a 10-field object. Goal: a call costs at most three such updates.
 */
export default async function engineBench(): Promise<BenchReport> {
  let obj = { a: 0, b: 1, c: 2, d: 3, e: 4, f: 5, g: 6, h: 7, i: 8, j: 9 };
  const produceRate = opsPerSecondSync(() => {
    obj = produce(obj, (d) => {
      d.a += 1;
    });
  });

  const call = { version: '1.5' as const, endpoint: 'core.balance' as const, credentials: { username: 'bench', apiKey: 'bench-key-0001' }, params: {} };
  // Two stores: one that keeps every event (an embedder's `new MemoryEventStore()`), and the server's,
  // which forgets credit charges once a snapshot covers them (`sdp serve --store memory:`).
  const rateOn = async (store: MemoryEventStore): Promise<number> => {
    const clock = new ManualClock(Date.parse('2026-01-01T00:00:00Z'));
    const engine = new Engine({ store, clock, ids: seededIds(1), handlers: { 'core.balance': () => ({ body: {} }) } });
    // Enough credit that the benchmark never hits the limit: the path measured is the charged one.
    await engine.openAccount({ username: 'bench', api_key: 'bench-key-0001', package: { credits_per_hour: 1e12 } });
    let bad = 0;
    const rate = await opsPerSecond(async () => {
      const a = await engine.call(call);
      if (a.status !== 200) bad++;
    });
    if (bad > 0) throw new Error(`engine bench: ${bad} calls were not charged 200s`);
    return rate;
  };
  const callRate = await rateOn(new MemoryEventStore());
  const serverRate = await rateOn(new MemoryEventStore({ compactable: forgettableCharge }));
  // A peer for scale: the popular in-process limiter's consume (no events, no durable record, no auth).
  const limiter = new RateLimiterMemory({ points: 1e12, duration: 3600 });
  const limiterRate = await opsPerSecond(() => limiter.consume('bench', 1));
  const ratio = callRate / produceRate;
  return {
    title: 'engine: charged calls through engine.call (memory store, manual clock)',
    baseline: { name: 'immer produce of a 10-field object', opsPerSec: produceRate },
    subjects: [
      { name: 'engine.call, charged (auth, allowance, charge, append), store keeping every event', opsPerSec: callRate, extra: { 'cost in produces': (1 / ratio).toFixed(2), us_per_call: (1e6 / callRate).toFixed(2) } },
      { name: "engine.call, charged, the server's memory store (charges forgotten under snapshots)", opsPerSec: serverRate, extra: { 'cost in produces': (produceRate / serverRate).toFixed(2), us_per_call: (1e6 / serverRate).toFixed(2) } },
      { name: 'rate-limiter-flexible RateLimiterMemory.consume (peer)', opsPerSec: limiterRate, extra: { us_per_call: (1e6 / limiterRate).toFixed(2) } },
    ],
    goal: { text: 'a charged call costs no more than three produces (ratio >= 0.333)', met: ratio >= 1 / 3 },
  };
}
