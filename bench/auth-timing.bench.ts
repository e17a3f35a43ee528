import { createEngine } from '@sdp/core';
import { MemoryEventStore, seededIds } from '@sdp/core/kernel';
import { opsPerSecond, type BenchReport } from './lib.ts';

/**
 * Issue 12's username-probing measure: a call with an unknown username against a call with an existing
 * username and a wrong key, each with a fresh key (no memoized digest), in the same run. Equal cost
 * (ratio near 1) means timing does not tell which usernames exist.
 */
export default async function bench(): Promise<BenchReport> {
  const engine = createEngine({ store: new MemoryEventStore(), clock: { now: () => Date.parse('2026-03-02T08:00:00Z') }, ids: seededIds(4), settings: {} });
  await engine.openAccount({ username: 'alice', api_key: 'alice-key-0001' });
  let n = 0;
  const call = (username: string) => engine.call({ version: '1.5', endpoint: 'core.balance', credentials: { username, apiKey: `wrong-key-${n++}` }, params: {} });
  const rounds: Array<[number, number]> = [];
  for (let r = 0; r < 3; r++) {
    // Alternating which goes first, so warm-up and collection fall on both alike.
    const u = r % 2 === 1 ? await opsPerSecond(() => call('nobody'), 700) : 0;
    const k = await opsPerSecond(() => call('alice'), 700);
    rounds.push([k, u || (await opsPerSecond(() => call('nobody'), 700))]);
  }
  const [known, unknown] = rounds.sort((a, b) => a[1] / a[0] - b[1] / b[0])[1]!;
  return {
    title: 'Authentication cost: existing username with a wrong key vs unknown username (median of 3 rounds)',
    baseline: { name: 'existing username, wrong key', opsPerSec: known, extra: { us_per_call: (1e6 / known).toFixed(2) } },
    subjects: [{ name: 'unknown username (dummy digest)', opsPerSec: unknown, extra: { us_per_call: (1e6 / unknown).toFixed(2) } }],
    goal: { text: 'unknown usernames cost within 25% of existing ones', met: Math.abs(unknown / known - 1) < 0.25 },
  };
}
