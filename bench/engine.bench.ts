import { spawnSync } from 'node:child_process';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { produce } from 'immer';
import { RateLimiterMemory } from 'rate-limiter-flexible';
import { Engine, forgettableCharge } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { ManualClock } from '@sdp/clock';
import { opsPerSecond, opsPerSecondSync, type BenchReport } from './lib.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * The charged call of this checkout's core against another checkout's (`ENGINE_BENCH_BASE=DIR`): each
 * measured alone in a fresh process (`engine-solo.mjs`, CPU microseconds per call on the server's memory
 * store, from sources as this bench runs), `ENGINE_BENCH_ROUNDS` rounds alternating which goes first, and
 * the median of each round's ratio. In one process the second copy of the core would run on code the
 * first had not made polymorphic, and CPU time is steadier than wall time on a shared machine.
 */
function pairedWithBase(dir: string): { lines: { name: string; opsPerSec: number; extra: Record<string, string> }[]; note: string } {
  const rounds = Number(process.env.ENGINE_BENCH_ROUNDS ?? 5);
  const solo = (coreAt: string | undefined): number => {
    const args = ['--conditions=@sdp/source', '--import', 'tsx', join(root, 'bench', 'engine-solo.mjs'), ...(coreAt ? [coreAt] : [])];
    const r = spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8', env: { ...process.env, COMPACT: '1', N: process.env.ENGINE_BENCH_CALLS ?? '200000' } });
    const us = Number(r.stdout.trim());
    if (r.status !== 0 || !Number.isFinite(us)) throw new Error(`engine-solo failed: ${r.stderr}`);
    return us;
  };
  const baseCore = resolve(join(dir, 'packages/core/src/index.ts'));
  const here: number[] = [];
  const there: number[] = [];
  for (let r = 0; r < rounds; r++) {
    if (r % 2 === 0) {
      here.push(solo(undefined));
      there.push(solo(baseCore));
    } else {
      there.push(solo(baseCore));
      here.push(solo(undefined));
    }
  }
  // Calls per second of CPU: the base's microseconds over this checkout's, round by round.
  const ratios = here.map((h, i) => there[i]! / h);
  return {
    lines: [
      { name: 'engine.call, charged, server\'s memory store, this checkout (alone, CPU)', opsPerSec: 1e6 / median(here), extra: { cpu_us_per_call: median(here).toFixed(3) } },
      { name: `engine.call, charged, server's memory store, core at ${dir} (alone, CPU)`, opsPerSec: 1e6 / median(there), extra: { cpu_us_per_call: median(there).toFixed(3) } },
    ],
    note: `this checkout against ${dir}: ${median(ratios).toFixed(3)}x the calls per CPU second (median of ${rounds} alternating rounds, each build alone in a process; per round: ${ratios.map((x) => x.toFixed(3)).join(' ')})`,
  };
}

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
  const baseDir = process.env.ENGINE_BENCH_BASE;
  const paired = baseDir ? pairedWithBase(baseDir) : undefined;
  return {
    title: 'engine: charged calls through engine.call (memory store, manual clock)',
    baseline: { name: 'immer produce of a 10-field object', opsPerSec: produceRate },
    subjects: [
      { name: 'engine.call, charged (auth, allowance, charge, append), store keeping every event', opsPerSec: callRate, extra: { 'cost in produces': (1 / ratio).toFixed(2), us_per_call: (1e6 / callRate).toFixed(2) } },
      { name: "engine.call, charged, the server's memory store (charges forgotten under snapshots)", opsPerSec: serverRate, extra: { 'cost in produces': (produceRate / serverRate).toFixed(2), us_per_call: (1e6 / serverRate).toFixed(2) } },
      { name: 'rate-limiter-flexible RateLimiterMemory.consume (peer)', opsPerSec: limiterRate, extra: { us_per_call: (1e6 / limiterRate).toFixed(2) } },
      ...(paired?.lines ?? []),
    ],
    ...(paired ? { notes: [paired.note] } : {}),
    goal: { text: 'a charged call costs no more than three produces (ratio >= 0.333)', met: ratio >= 1 / 3 },
  };
}
