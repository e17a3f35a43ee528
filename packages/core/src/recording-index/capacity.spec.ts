import { describe, expect, it } from 'vitest';
import { fc, test } from '@fast-check/vitest';
import { fold } from '../kernel/decider.ts';
import { deciderSpec } from '@sdp/testing';
import { dailyAccountLimit, dailyCapacityDecider, recordedCountsOnly, type CapacityEvent, type OfferedInteraction } from './capacity.ts';

const offered = (at: number, recordings: string[]): OfferedInteraction => ({
  at,
  interaction: { interaction: { id: String(at) } },
  matches: recordings.map((recording) => ({ recording, tags: [] })),
});

const batch = fc.array(
  fc.subarray(['r1', 'r2', 'r3'], { minLength: 1 }).map((rs) => rs),
  { maxLength: 30 },
);

describe('daily capacity', () => {
  it('the daily account limit is monthly capacity / 30 rounded up to a million', () => {
    expect(dailyAccountLimit(12_000_000)).toBe(1_000_000);
    expect(dailyAccountLimit(30_000_000)).toBe(1_000_000);
    expect(dailyAccountLimit(30_000_001)).toBe(2_000_000);
    expect(dailyAccountLimit(1)).toBe(1_000_000);
    expect(dailyAccountLimit(0)).toBe(0);
  });

  it('keeps matches until a cap is reached, then refuses and counts the refusals', () => {
    const state = deciderSpec(dailyCapacityDecider)
      .given([])
      .when({ type: 'RecordInteractions', day: '2026-01-01', accountLimit: 3, perFilterCap: 2, items: [offered(1, ['r1', 'r2']), offered(2, ['r1', 'r2']), offered(3, ['r1'])] })
      .then([
        {
          type: 'InteractionsRecorded',
          data: { day: '2026-01-01', items: [offered(1, ['r1', 'r2']), offered(2, ['r1'])], kept: { r1: 2, r2: 1 }, refused: { r2: 1, r1: 1 } },
        },
      ]);
    expect(state).toEqual({ used: 3, byRecording: { r1: 2, r2: 1 }, refused: { r1: 1, r2: 1 } });
  });

  it('decides nothing when nothing was offered', () => {
    deciderSpec(dailyCapacityDecider).given([]).when({ type: 'RecordInteractions', day: 'd', accountLimit: 5, items: [] }).then([]);
  });

  test.prop([fc.array(batch, { maxLength: 8 }), fc.integer({ min: 0, max: 40 }), fc.integer({ min: 0, max: 15 })])(
    'no recording keeps more than the per-filter cap and the account never more than its daily limit, and nothing is refused while both have room',
    (batches, accountLimit, perFilterCap) => {
      let state = dailyCapacityDecider.initialState();
      const log: CapacityEvent[] = [];
      let t = 0;
      for (const b of batches) {
        const items = b.map((rs) => offered(++t, rs));
        const before = state;
        const events = dailyCapacityDecider.decide({ type: 'RecordInteractions', day: 'd', accountLimit, perFilterCap, items }, state);
        for (const e of events) state = dailyCapacityDecider.evolve(state, e);
        log.push(...events);
        const offeredPairs = b.reduce((n, rs) => n + rs.length, 0);
        const kept = events.reduce((n, e) => n + Object.values(e.type === 'InteractionsRecorded' ? e.data.kept : {}).reduce((a, x) => a + x, 0), 0);
        const refused = events.reduce((n, e) => n + Object.values(e.type === 'InteractionsRecorded' ? e.data.refused : {}).reduce((a, x) => a + x, 0), 0);
        expect(kept + refused).toBe(offeredPairs);
        // A refusal only happens once a cap is full.
        for (const e of events) {
          for (const id of Object.keys(e.type === 'InteractionsRecorded' ? e.data.refused : {})) {
            expect((state.byRecording[id] ?? 0) === perFilterCap || state.used === accountLimit).toBe(true);
          }
        }
        expect(state.used - before.used).toBe(kept);
      }
      expect(state.used).toBeLessThanOrEqual(accountLimit);
      for (const n of Object.values(state.byRecording)) expect(n).toBeLessThanOrEqual(perFilterCap);
      expect(state.used).toBe(Object.values(state.byRecording).reduce((a, x) => a + x, 0));
      expect(fold(dailyCapacityDecider, log)).toEqual(state);
      // A store holding the events without their interactions (a simulation's) folds the same state.
      const held = log.map((e, k) => recordedCountsOnly({ ...e, id: `e${k}`, stream: 'capacity:u:d', version: k + 1, position: k + 1, time: 0, schemaVersion: 1 }));
      expect(held.every((e) => e.type !== 'InteractionsRecorded' || (e.data as { items: unknown[] }).items.length === 0)).toBe(true);
      expect(fold(dailyCapacityDecider, held as CapacityEvent[])).toEqual(state);
    },
  );
});
