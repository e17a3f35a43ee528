import { createEngine, forgettableCharge } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import type { BenchLine, BenchReport } from './lib.ts';

/**
 * Issue 12's memory measure: 1,000,000 calls on the `memory:` store as the server opens it (charges a
 * snapshot covers are forgotten), reporting resident memory at the start, middle and end. The baseline
 * is the store that keeps everything, over a tenth of the calls (a million would take over a gigabyte).
 */
const mb = (): number => Math.round(process.memoryUsage().rss / 1024 / 1024);

async function run(store: MemoryEventStore, calls: number): Promise<BenchLine['extra'] & { opsPerSec: number }> {
  const engine = createEngine({ store, clock: { now: () => Date.parse('2026-03-02T08:00:00Z') }, ids: seededIds(4), settings: {} });
  await engine.openAccount({ username: 'alice', api_key: 'alice-key-0001', package: { credits_per_hour: 1e12 } });
  const call = { version: '1.5' as const, endpoint: 'core.balance' as const, credentials: { username: 'alice', apiKey: 'alice-key-0001' }, params: {} };
  globalThis.gc?.();
  const start = mb();
  let middle = 0;
  const t = performance.now();
  for (let k = 0; k < calls; k++) {
    await engine.call(call);
    if (k === calls / 2) {
      globalThis.gc?.();
      middle = mb();
    }
  }
  const seconds = (performance.now() - t) / 1000;
  globalThis.gc?.();
  return { opsPerSec: calls / seconds, rss_start_mb: start, rss_middle_mb: middle, rss_end_mb: mb(), events_held: (await store.readAll()).length, head: await store.head() };
}

export default async function bench(): Promise<BenchReport> {
  const { opsPerSec: baseOps, ...baseExtra } = await run(new MemoryEventStore(), 100_000);
  const { opsPerSec, ...extra } = await run(new MemoryEventStore({ compactable: forgettableCharge }), 1_000_000);
  const grew = Number(extra.rss_end_mb) - Number(extra.rss_middle_mb);
  return {
    title: 'memory: store over 1,000,000 calls (resident memory)',
    baseline: { name: 'keeps every event, 100,000 calls', opsPerSec: baseOps, extra: baseExtra },
    subjects: [{ name: 'forgets snapshotted charges, 1,000,000 calls', opsPerSec, extra }],
    goal: { text: `resident memory does not grow with calls in the second half (grew ${grew} MB from middle to end)`, met: grew < 50 },
    notes: ['run with `node --expose-gc` (NODE_OPTIONS=--expose-gc) for figures taken after a collection'],
  };
}
