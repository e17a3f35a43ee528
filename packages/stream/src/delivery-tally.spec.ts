import { describe, expect } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { MAX_LICENCE_TYPES, STREAM_USAGE_KEPT_MS, type DeliveredCounts } from '@sdp/core/internal';
import { DeliveryTally } from './delivery-tally.ts';

type Step =
  | { kind: 'add'; user: string; hash: string; type: string | undefined; at: number }
  | { kind: 'write'; user: string; ok: boolean };

const step = fc.oneof(
  fc.record({ kind: fc.constant('add' as const), user: fc.constantFrom('ada', 'bob'), hash: fc.constantFrom('h1', 'h2'), type: fc.constantFrom(undefined, 'facebook', 'twitter'), at: fc.integer({ min: 0, max: 5 * 60_000 }) }),
  fc.record({ kind: fc.constant('write' as const), user: fc.constantFrom('ada', 'bob'), ok: fc.boolean() }),
);

/** Adds `counts` into `into` (by user, minute, hash, type). */
function merge(into: Map<string, number>, user: string, counts: DeliveredCounts | undefined): void {
  for (const [minute, byHash] of Object.entries(counts ?? {})) {
    for (const [hash, licences] of Object.entries(byHash)) {
      for (const [type, n] of Object.entries(licences)) into.set(`${user} ${minute} ${hash} ${type}`, (into.get(`${user} ${minute} ${hash} ${type}`) ?? 0) + n);
    }
  }
}

describe('the delivery tally', () => {
  test.prop([fc.array(step, { maxLength: 80 })])(
    'nothing delivered is lost or counted twice: what the writes that succeeded took, with what is still held, is every delivery by minute, hash and type',
    (steps) => {
      const tally = new DeliveryTally();
      const expected = new Map<string, number>();
      const recorded = new Map<string, number>();
      for (const s of steps) {
        if (s.kind === 'add') {
          tally.add(s.user, s.hash, s.type, s.at, 0);
          const minute = Math.floor(s.at / 60_000) * 60_000;
          merge(expected, s.user, { [minute]: { [s.hash]: s.type ? { interaction: 1, [s.type]: 1 } : { interaction: 1 } } });
          continue;
        }
        const taken = tally.take(s.user);
        if (!taken) continue;
        if (s.ok) merge(recorded, s.user, taken);
        else tally.restore(s.user, taken, 0, 0);
      }
      for (const user of tally.accounts()) merge(recorded, user, tally.take(user));
      expect(recorded).toEqual(expected);
    },
  );

  test.prop([fc.integer({ min: 1, max: 40 })])('an account holds at most MAX_LICENCE_TYPES types for a hash in a minute; the rest count as interactions', (types) => {
    const tally = new DeliveryTally();
    for (let k = 0; k < types; k++) tally.add('ada', 'h', `source${k}`, 0, 0);
    const licences = tally.take('ada')!['0']!.h!;
    expect(licences.interaction).toBe(types);
    expect(Object.keys(licences).length).toBeLessThanOrEqual(MAX_LICENCE_TYPES);
  });

  test('a write that fails gives its counts back, bar minutes older than /usage reads', () => {
    const tally = new DeliveryTally();
    tally.add('ada', 'h', undefined, 0, 0);
    tally.add('ada', 'h', undefined, STREAM_USAGE_KEPT_MS, 0);
    tally.restore('ada', tally.take('ada')!, STREAM_USAGE_KEPT_MS + 60_000, 0);
    expect(tally.take('ada')).toEqual({ [String(STREAM_USAGE_KEPT_MS)]: { h: { interaction: 1 } } });
  });

  test('counts are due when a clock minute they hold has ended, or after the real time they may be held', () => {
    const tally = new DeliveryTally();
    tally.add('ada', 'h', undefined, 30_000, 1_000);
    expect(tally.due(59_999, 1_000, 60_000)).toEqual([]);
    expect(tally.due(60_000, 1_000, 60_000)).toEqual(['ada']);
    expect(tally.due(59_999, 61_000, 60_000)).toEqual(['ada']);
  });
});
